export {
  PRICES_AS_OF,
  MODEL_PRICES,
  priceOf,
  costOf,
  totalTokens,
  type ModelPrice,
  type TokenUsage,
} from './pricing.ts'
export {
  callMessages,
  usageOf,
  parseRetryAfter,
  retryDelayMs,
  redactSecrets,
  abortableSleep,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_BASE_DELAY_MS,
  DEFAULT_MAX_DELAY_MS,
  type AttemptInfo,
  type CallMessagesOptions,
  type MessagesRequest,
  type MessagesResponse,
} from './messages-call.ts'
export { loadAnthropicSdk, createAnthropicClient } from './sdk.ts'
