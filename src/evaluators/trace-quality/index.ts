export { analyzeTraceQuality, type TraceQualityReport } from './analyze.ts'
export { traceQuality, type TraceQualityEvaluatorOptions } from './evaluator.ts'
export { findCycles, type CycleOptions } from './loops.ts'
export { findHallucinatedToolResults, TOOL_CLAIM_PATTERNS } from './hallucinations.ts'
export {
  DEFAULT_FAIL_ON,
  TRACE_QUALITY_FINDING_TYPES,
  type TraceQualityFindingType,
  type TraceQualityOptions,
} from './options.ts'
