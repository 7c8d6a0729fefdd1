export {
  anthropicRunner,
  DEFAULT_AGENT_MAX_ATTEMPTS,
  DEFAULT_AGENT_MAX_TOKENS,
  DEFAULT_AGENT_MAX_TURNS,
  DEFAULT_AGENT_SYSTEM_PROMPT,
  type AnthropicRunnerOptions,
} from './runner.ts'
export { RateLimiter, sharedRateLimiter, RATE_WINDOW_MS, type LimiterClock } from './rate-limiter.ts'
export { type ToolContext, type ToolEnv, type ToolHandler } from './tools.ts'
