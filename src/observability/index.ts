export {
  buildRunSpanLines,
  captureContentFromEnv,
  RunSpanWriter,
  TRACER_NAME,
  type RunSpanOptions,
  type RunSpansInput,
  type RunStages,
  type StageTime,
} from './run-spans.ts'
export { randomSpanIds, type SpanIds } from './otlp-encode.ts'
export { OtlpSpan, OtlpTraceRequest, SPANS_FILE } from '../core/index.ts'
export { otlpLinesText, otlpSpans, parseOtlpLines, readOtlpLines } from './otlp-json.ts'
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
