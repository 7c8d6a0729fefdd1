export type * from './contract.ts'
export * from './amp/index.ts'
export * from './scoring/index.ts'
export {
  createOtlpFileSource,
  otlpIdsOf,
  OTLP_FILE_PAGE_SIZE,
  type OtlpFileSourceOptions,
} from './sources/otlp-file-source.ts'
export {
  createLangfuseSource,
  LANGFUSE_PAGE_SIZE,
  type LangfuseSourceOptions,
} from './sources/langfuse-source.ts'
export type { LangfuseOptions } from './sources/langfuse-client.ts'
export { createLangfusePublisher } from './sinks/langfuse-publisher.ts'
export {
  createOtlpLogsPublisher,
  otlpLogsUrl,
  EVENT_GEN_AI_EVALUATION_RESULT,
  type OtlpLogsPublisherOptions,
} from './sinks/otlp-logs-publisher.ts'
export * from './job/index.ts'
