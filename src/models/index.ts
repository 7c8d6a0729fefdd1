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
  parseRetryAfter,
  retryDelayMs,
  redactSecrets,
  abortableSleep,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_BASE_DELAY_MS,
  DEFAULT_MAX_DELAY_MS,
  type AttemptInfo,
  type CallMessagesOptions,
} from './attempts.ts'
export { callMessages, usageOf, type MessagesRequest, type MessagesResponse } from './messages-call.ts'
export { callChatCompletions, chatUsageOf, type ChatRequest, type ChatResponse } from './chat-call.ts'
export { loadAnthropicSdk, createAnthropicClient, loadOpenAISdk, createOpenAIClient } from './sdk.ts'
