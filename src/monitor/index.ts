export type * from './contract.ts'
export {
  createOtlpFileSource,
  otlpIdsOf,
  OTLP_FILE_PAGE_SIZE,
  type OtlpFileSourceOptions,
} from './sources/otlp-file-source.ts'
