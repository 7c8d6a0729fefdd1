import type Anthropic from '@anthropic-ai/sdk'
import {
  AgentEvalOpsError,
  type Evaluator,
  type EvaluatorContext,
  type EvaluatorFinding,
  type EvaluatorOutput,
  type TrialView,
} from '../../core/index.ts'
import {
  callMessages,
  createAnthropicClient,
  costOf,
  PRICES_AS_OF,
  redactSecrets,
  totalTokens,
  type AttemptInfo,
  type CallMessagesOptions,
  type MessagesRequest,
  type MessagesResponse,
} from '../../models/index.ts'
import { aggregateVerdicts, JUDGE_RULES, verdictPasses, type JudgeRule } from './aggregate.ts'
import { buildJudgePrompt, DEFAULT_TRANSCRIPT_CHARS, JUDGE_SYSTEM_PROMPT, repairPrompt } from './prompt.ts'
import { parseVerdict, type JudgeVerdict } from './verdict.ts'

export const DEFAULT_JUDGE_MODEL = 'claude-sonnet-4-6'
export const DEFAULT_JUDGE_MAX_TOKENS = 1024
const DEFAULT_TIMEOUT_MS = 120_000

export interface LlmJudgeOptions {
  /** Default `llm_judge`. */
  id?: string
  /** What a good trial looks like, in plain words: the judge scores against this alone. */
  rubric: string
  /** Default `claude-sonnet-4-6` (DEFAULT_JUDGE_MODEL). */
  model?: string
  /** Per reply (default 1024). */
  maxTokens?: number
  /** k independent judgements, made one after another (default 1). */
  repeats?: number
  /** How the k verdicts make one (default `majority`). */
  rule?: JudgeRule
  /** For `mean`: the mean score must be at least this (default 0.5). */
  threshold?: number
  /** HTTP attempts per model call, the first included (default 3). */
  maxAttempts?: number
  /** Follow-ups asking for valid JSON after a reply that is not a verdict (default 2). */
  malformedRetries?: number
  /** Used as is; otherwise a client is made at the first evaluation from `apiKey` and `baseURL`. */
  client?: Anthropic
  /** Default `ANTHROPIC_BASE_URL`, else the public API. */
  baseURL?: string
  /** Default `ANTHROPIC_API_KEY`. Never written to a score, an event or an error. */
  apiKey?: string
  /** Default 0 for repeatable verdicts; null leaves it out of the request (for models that refuse it). */
  temperature?: number | null
  /** Transcript size cap; the middle of a longer trace is left out (default 20 000). */
  maxTranscriptChars?: number
  /** Per HTTP attempt (default 120 s). */
  timeoutMs?: number
  /** Backoff between attempts; tests shorten it. */
  retry?: Pick<CallMessagesOptions, 'baseDelayMs' | 'maxDelayMs' | 'sleep'>
}

interface JudgeConfig {
  id: string
  rubric: string
  model: string
  maxTokens: number
  repeats: number
  rule: JudgeRule
  threshold: number
  maxAttempts: number
  malformedRetries: number
  temperature: number | null
  maxTranscriptChars: number
  timeoutMs: number
  retry: Pick<CallMessagesOptions, 'baseDelayMs' | 'maxDelayMs' | 'sleep'>
}

/**
 * An evaluator that asks a Claude model to grade the trial against a rubric. Each of the k judgements is its own
 * conversation; every HTTP attempt (ok, malformed, rate-limited, failed) is recorded as an `evaluator.model_call`
 * event with its cost. When a judgement cannot be had (the API keeps failing, the replies are never a valid
 * verdict) it throws INFRA_FAILURE: the engine records "could not judge", never a pass or a fail of the agent.
 */
export function llmJudge(options: LlmJudgeOptions): Evaluator {
  const config = resolveConfig(options)
  let client: Anthropic | undefined
  return {
    id: config.id,
    kind: 'llm_judge',
    async evaluate(view, ctx) {
      // Made at the first evaluation, so defining a suite needs no API key until a judge actually runs.
      client ??= await createClient(options, config.id)
      return judge(client, config, view, ctx, options.apiKey)
    },
  }
}

/** One judging of a trial, outside an evaluator list (the `toSatisfyJudge` matcher). */
export async function runJudge(
  view: TrialView,
  options: LlmJudgeOptions,
  ctx?: EvaluatorContext,
): Promise<EvaluatorOutput> {
  const config = resolveConfig(options)
  return judge(await createClient(options, config.id), config, view, ctx, options.apiKey)
}

interface Ledger {
  costUsd: number
  costUnknown: boolean
}

interface JudgeRun {
  client: Anthropic
  config: JudgeConfig
  prompt: string
  steps: ReadonlySet<number>
  ctx: EvaluatorContext | undefined
  redact: (text: string) => string
  ledger: Ledger
}

async function judge(
  client: Anthropic,
  config: JudgeConfig,
  view: TrialView,
  ctx: EvaluatorContext | undefined,
  apiKey: string | undefined,
): Promise<EvaluatorOutput> {
  const secrets = [apiKey, client.apiKey, client.authToken]
  const run: JudgeRun = {
    client,
    config,
    prompt: buildJudgePrompt(view, config.rubric, config.maxTranscriptChars),
    steps: new Set(view.events.map((e) => e.step)),
    ctx,
    redact: (text) => redactSecrets(text, secrets),
    ledger: { costUsd: 0, costUnknown: false },
  }
  // One after another, not in parallel: the events of each judgement stay together in the trace, and k calls at
  // once would trip the rate limit that retries then have to wait out anyway.
  const verdicts: JudgeVerdict[] = []
  for (let repeat = 1; repeat <= config.repeats; repeat++) verdicts.push(await judgeOnce(run, repeat))
  return summarize(run, verdicts)
}

/** One judgement: a model call, and follow-ups asking for valid JSON while the reply is not a verdict. */
async function judgeOnce(run: JudgeRun, repeat: number): Promise<JudgeVerdict> {
  const { config } = run
  const first: Anthropic.MessageParam = { role: 'user', content: run.prompt }
  let messages: Anthropic.MessageParam[] = [first]
  let attempt = 0
  let problem = ''
  for (let reply = 0; reply <= config.malformedRetries; reply++) {
    // The ok attempt is recorded only once its reply is read: only then is it known to be ok or malformed.
    const answered: { info?: AttemptInfo } = {}
    const response = await callMessages(run.client, requestFor(config, messages), {
      signal: run.ctx?.signal,
      gate: run.ctx?.modelCalls,
      maxAttempts: config.maxAttempts,
      timeoutMs: config.timeoutMs,
      ...config.retry,
      onAttempt: (info) => {
        attempt++
        if (info.status === 'ok') answered.info = info
        else record(run, repeat, attempt, 'error', info)
      },
    })
    const text = textOf(response)
    const parsed = parseVerdict(text, run.steps)
    if (parsed.ok) {
      record(run, repeat, attempt, 'ok', answered.info)
      return parsed.verdict
    }
    const cutOff = response.stop_reason === 'max_tokens' ? ' (the reply was cut off at max_tokens)' : ''
    problem = `${parsed.problem}${cutOff}`
    record(run, repeat, attempt, 'malformed', answered.info, problem)
    // An empty reply cannot be quoted back (the API refuses an empty assistant turn): ask afresh instead.
    messages =
      text.trim() === ''
        ? [first]
        : [first, { role: 'assistant', content: text }, { role: 'user', content: repairPrompt(problem) }]
  }
  throw new AgentEvalOpsError(
    'INFRA_FAILURE',
    `llm_judge "${config.id}": ${config.model} gave no valid verdict in ${config.malformedRetries + 1} ` +
      `replies (last: ${run.redact(problem)})`,
    { hint: 'What was wrong with each reply is in its evaluator.model_call event in the trace.' },
  )
}

function requestFor(config: JudgeConfig, messages: Anthropic.MessageParam[]): MessagesRequest {
  return {
    model: config.model,
    max_tokens: config.maxTokens,
    system: JUDGE_SYSTEM_PROMPT,
    messages,
    ...(config.temperature === null ? {} : { temperature: config.temperature }),
  }
}

/** Emits one `evaluator.model_call` event (when there is a trace to write to) and books the attempt's cost. */
function record(
  run: JudgeRun,
  repeat: number,
  attempt: number,
  status: 'ok' | 'malformed' | 'error',
  info: AttemptInfo | undefined,
  problem?: string,
): void {
  const { config, ledger } = run
  const usage = info?.usage
  const priced = usage ? costOf(config.model, usage) : 0
  if (priced === null) ledger.costUnknown = true
  const costUsd = priced ?? 0
  ledger.costUsd += costUsd
  if (!run.ctx) return
  const error = problem ?? info?.error
  run.ctx.emit(
    'evaluator.model_call',
    {
      evaluatorId: config.id,
      model: config.model,
      attempt,
      status,
      latencyMs: info?.latencyMs ?? 0,
      ...(usage
        ? {
            inputTokens: usage.input_tokens,
            outputTokens: usage.output_tokens,
            cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0,
            cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
          }
        : {}),
      ...(error === undefined ? {} : { error: run.redact(error) }),
      repeat,
      ...(info?.httpStatus === undefined ? {} : { httpStatus: info.httpStatus }),
      ...(info?.retryInMs === undefined ? {} : { retryInMs: info.retryInMs }),
      ...(priced === null ? { costUnknown: true } : {}),
    },
    { tokens: usage ? totalTokens(usage) : 0, costUsd },
  )
}

function summarize(run: JudgeRun, verdicts: readonly JudgeVerdict[]): EvaluatorOutput {
  const { config, ledger } = run
  const agg = aggregateVerdicts(verdicts, config.rule, config.threshold)
  const k = verdicts.length
  const fails = k - agg.passes
  const outcome = agg.passed ? 'passed' : 'failed'
  const ruleLine =
    config.rule === 'majority'
      ? `majority of ${k} judgement(s): ${agg.passes} pass, ${fails} fail → ${outcome}`
      : config.rule === 'all'
        ? `all ${k} judgement(s) must pass: ${agg.passes} pass, ${fails} fail → ${outcome}`
        : `mean score ${fmt(agg.score)} of ${k} judgement(s) (${verdicts.map((v) => fmt(v.score)).join(', ')}) ` +
          `vs threshold ${config.threshold} → ${outcome}`
  const parts = [`${ruleLine}.`, `Judge: ${cut(verdicts[0]?.reasoning ?? '', 300)}`]
  if (ledger.costUnknown)
    parts.push(`(cost unknown for model ${config.model}: not in the price table of ${PRICES_AS_OF})`)
  const findings: EvaluatorFinding[] = verdicts.map((v, i) => ({
    type: 'judge_verdict',
    message: run.redact(
      `judgement ${i + 1}/${k}: score ${fmt(v.score)}, ` +
        `${verdictPasses(v, config.rule, config.threshold) ? 'pass' : 'fail'}: ${cut(v.reasoning, 200)}`,
    ),
    citations: v.citations,
  }))
  return {
    score: agg.score,
    passed: agg.passed,
    confidence: agg.confidence,
    costUsd: Math.round(ledger.costUsd * 1e9) / 1e9,
    explanation: run.redact(parts.join(' ')),
    citations: [...new Set(verdicts.flatMap((v) => v.citations))].sort((a, b) => a - b),
    findings,
  }
}

function textOf(response: MessagesResponse): string {
  return response.content
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n')
    .trim()
}

function fmt(n: number): string {
  return String(Math.round(n * 1000) / 1000)
}

function cut(text: string, max: number): string {
  const oneLine = text.trim().replace(/\s+/g, ' ')
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine
}

async function createClient(options: LlmJudgeOptions, id: string): Promise<Anthropic> {
  if (options.client) return options.client
  const apiKey = (options.apiKey ?? process.env.ANTHROPIC_API_KEY)?.trim()
  if (!apiKey) {
    throw new AgentEvalOpsError('CONFIG_INVALID', `llm_judge "${id}" has no Anthropic API key`, {
      hint: 'Set ANTHROPIC_API_KEY (or pass apiKey or client to llmJudge()).',
    })
  }
  const baseURL = options.baseURL ?? (process.env.ANTHROPIC_BASE_URL || undefined)
  return createAnthropicClient({ apiKey, baseURL })
}

function resolveConfig(options: LlmJudgeOptions): JudgeConfig {
  const id = options.id ?? 'llm_judge'
  const invalid = (what: string): AgentEvalOpsError =>
    new AgentEvalOpsError('CONFIG_INVALID', `llm_judge "${id}": ${what}`)
  const int = (name: string, value: number, min: number): number => {
    if (!Number.isInteger(value) || value < min)
      throw invalid(`${name} must be an integer ≥ ${min}, got ${value}`)
    return value
  }
  if (typeof options.rubric !== 'string' || options.rubric.trim() === '') throw invalid('rubric is empty')
  const rule = options.rule ?? 'majority'
  if (!JUDGE_RULES.includes(rule)) throw invalid(`rule must be one of ${JUDGE_RULES.join(', ')}, got ${rule}`)
  const threshold = options.threshold ?? 0.5
  if (!(threshold >= 0 && threshold <= 1))
    throw invalid(`threshold must be between 0 and 1, got ${threshold}`)
  const model = options.model ?? DEFAULT_JUDGE_MODEL
  if (model.trim() === '') throw invalid('model is empty')
  const temperature = options.temperature === undefined ? 0 : options.temperature
  if (temperature !== null && !(temperature >= 0 && temperature <= 1))
    throw invalid(`temperature must be between 0 and 1, got ${temperature}`)
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (!(timeoutMs > 0)) throw invalid(`timeoutMs must be > 0, got ${timeoutMs}`)
  return {
    id,
    rubric: options.rubric,
    model,
    maxTokens: int('maxTokens', options.maxTokens ?? DEFAULT_JUDGE_MAX_TOKENS, 1),
    repeats: int('repeats', options.repeats ?? 1, 1),
    rule,
    threshold,
    maxAttempts: int('maxAttempts', options.maxAttempts ?? 3, 1),
    malformedRetries: int('malformedRetries', options.malformedRetries ?? 2, 0),
    temperature,
    maxTranscriptChars: int(
      'maxTranscriptChars',
      options.maxTranscriptChars ?? DEFAULT_TRANSCRIPT_CHARS,
      200,
    ),
    timeoutMs,
    retry: options.retry ?? {},
  }
}
