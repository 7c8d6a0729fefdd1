export {
  mergeShards,
  type MergeDerivation,
  type MergedRun,
  type MergeInput,
  type MergeResult,
} from './merge-shards.ts'
export { gateLine, type GateVerdict } from './gates.ts'
