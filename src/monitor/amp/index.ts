export {
  createAmpTraceSource,
  AMP_TRACE_PAGE_SIZE,
  AMP_TRACE_PAGE_SIZE_MAX,
  type AmpTraceSourceOptions,
} from './trace-source.ts'
export {
  createAmpPublisher,
  scoresPayloadText,
  PUBLISH_BODY_CHUNK_BYTES,
  type AmpPublisherOptions,
} from './publisher.ts'
export {
  idpTokenProviderFromEnv,
  createIdpTokenProvider,
  IDP_ENV,
  TOKEN_REFRESH_MARGIN_MS,
  TOKEN_DEFAULT_LIFETIME_MS,
  type TokenProvider,
  type IdpTokenOptions,
} from './idp-token.ts'
export {
  fetchWithRetry,
  backoffMs,
  AMP_RETRY_ATTEMPTS,
  AMP_RETRY_BASE_DELAY_MS,
  AMP_RETRY_MAX_DELAY_MS,
  AMP_REQUEST_TIMEOUT_MS,
  type RetryOptions,
  type HttpAnswer,
  type RetriedRequest,
} from './http-retry.ts'
