export {
  llmJudge,
  runJudge,
  DEFAULT_JUDGE_MODEL,
  DEFAULT_OPENAI_JUDGE_MODEL,
  DEFAULT_JUDGE_MAX_TOKENS,
  type LlmJudgeOptions,
} from './judge.ts'
export { judgeGatewayFromEnv, JUDGE_PROVIDERS, type JudgeProvider } from './backends.ts'
export { JUDGE_RULES, type JudgeRule } from './aggregate.ts'
export { JudgeVerdict, parseVerdict } from './verdict.ts'
export { JUDGE_SYSTEM_PROMPT } from './prompt.ts'
