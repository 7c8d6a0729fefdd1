export {
  buildRunSpans,
  captureContentFromEnv,
  TRACER_NAME,
  type RunSpansInput,
  type StageTime,
} from './run-spans.ts'
export { OtlpSpan, OtlpTraceRequest, SPANS_FILE } from '../core/index.ts'
export { otlpLinesText, otlpSpans, parseOtlpLines, spansToOtlpLines } from './otlp-json.ts'
export {
  exportOtlp,
  otlpTarget,
  type ExportOtlpOptions,
  type ExportOtlpResult,
  type OtlpTarget,
  type OtlpTargetResult,
} from './otlp-export.ts'
export { parseKeyValues, type Env } from './env.ts'
export * from './semconv.ts'
