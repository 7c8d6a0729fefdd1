import * as z from 'zod'
import { AgentEvalOpsError, closest, type AgentRunner } from '../../core/index.ts'
import { openaiRunner, type OpenAIRunnerOptions } from './runner.ts'

/**
 * The options of runner id `openai` in a YAML config, snake_case like every other config field. Secrets are
 * `${NAME}` references the loader expands right before this factory runs (`api_key: ${GATEWAY_KEY}`), so no key
 * is ever written in a config. Tools come from the benchmark: its tasks' tool specs and the handlers its env gives.
 */
export const OpenAIRunnerConfig = z.strictObject({
  model: z.string().trim().min(1, 'must not be empty'),
  base_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  api_key: z.string().min(1, 'must not be empty').optional(),
  headers: z.record(z.string(), z.string()).optional(),
  system: z.string().optional(),
  max_tokens: z.int().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_attempts: z.int().min(1).optional(),
  max_turns: z.int().min(1).optional(),
  timeout_ms: z.number().positive().optional(),
  requests_per_minute: z.int().min(1).optional(),
  name: z.string().min(1).optional(),
})
export type OpenAIRunnerConfig = z.infer<typeof OpenAIRunnerConfig>

const OPTION_NAMES = Object.keys(OpenAIRunnerConfig.shape).sort()

/**
 * Runner id `openai` from config options. `where` locates them for the error (e.g. `configs/x.yaml: agent.options`):
 * CONFIG_INVALID names the option, and a mistyped one gets "did you mean".
 */
export function openaiRunnerFromConfig(
  options: unknown,
  where: string,
  /** What a config cannot hold itself: tool handlers (the YAML factory loads them from a module). */
  extra: Pick<OpenAIRunnerOptions, 'tools'> = {},
): AgentRunner {
  const parsed = OpenAIRunnerConfig.safeParse(options ?? {})
  if (!parsed.success) {
    // A typo'd key also makes a real one look missing: the unknown key is the cause, so it comes first.
    const issues = [...parsed.error.issues].sort(
      (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
    )
    const problems = issues.slice(0, 3).map((issue) => {
      if (issue.code === 'unrecognized_keys' && issue.path.length === 0) {
        return issue.keys
          .map((key) => {
            const guess = closest(key, OPTION_NAMES, true)
            return `unknown option "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}`
          })
          .join('; ')
      }
      const name = issue.path.map(String).join('.')
      const given = issue.path.reduce<unknown>(
        (value, key) =>
          value !== null && typeof value === 'object'
            ? (value as Record<PropertyKey, unknown>)[key]
            : undefined,
        options ?? {},
      )
      const missing = issue.code === 'invalid_type' && given === undefined
      return missing ? `option "${name}" is required` : `option "${name}": ${issue.message}`
    })
    throw new AgentEvalOpsError('CONFIG_INVALID', `${where}: runner "openai": ${problems.join('; ')}.`, {
      hint: `Its options are: ${OPTION_NAMES.join(', ')}.`,
    })
  }
  const o = parsed.data
  return openaiRunner({
    ...extra,
    model: o.model,
    ...(o.base_url === undefined ? {} : { baseURL: o.base_url }),
    ...(o.api_key === undefined ? {} : { apiKey: o.api_key }),
    ...(o.headers === undefined ? {} : { headers: o.headers }),
    ...(o.system === undefined ? {} : { system: o.system }),
    ...(o.max_tokens === undefined ? {} : { maxTokens: o.max_tokens }),
    ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
    ...(o.max_attempts === undefined ? {} : { maxAttempts: o.max_attempts }),
    ...(o.max_turns === undefined ? {} : { maxTurns: o.max_turns }),
    ...(o.timeout_ms === undefined ? {} : { timeoutMs: o.timeout_ms }),
    ...(o.requests_per_minute === undefined ? {} : { requestsPerMinute: o.requests_per_minute }),
    ...(o.name === undefined ? {} : { name: o.name }),
  })
}
