export { stateBased, DEFAULT_COMMAND_TIMEOUT_MS, type StateBasedOptions } from './evaluator.ts'
export { StateCheck, type StateCheckType } from './checks.ts'
