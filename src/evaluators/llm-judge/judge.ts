import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import {
  AgentEvalOpsError,
  type Evaluator,
  type EvaluatorContext,
  type EvaluatorFinding,
  type EvaluatorOutput,
  type TrialView,
} from '../../core/index.ts'
import {
  costOf,
  PRICES_AS_OF,
  redactSecrets,
  totalTokens,
  type AttemptInfo,
  type CallMessagesOptions,
} from '../../models/index.ts'
import { aggregateVerdicts, JUDGE_RULES, verdictPasses, type JudgeRule } from './aggregate.ts'
import {
  createBackend,
  JUDGE_PROVIDERS,
  type JudgeBackend,
  type JudgeProvider,
  type JudgeRequestSettings,
  type JudgeTurn,
} from './backends.ts'
import { buildJudgePrompt, DEFAULT_TRANSCRIPT_CHARS, JUDGE_SYSTEM_PROMPT, repairPrompt } from './prompt.ts'
import { parseVerdict, type JudgeVerdict } from './verdict.ts'

export const DEFAULT_JUDGE_MODEL = 'claude-sonnet-4-6'
/** For provider `openai`: a non-reasoning model, so temperature 0 and JSON mode are accepted. */
export const DEFAULT_OPENAI_JUDGE_MODEL = 'gpt-4.1'
export const DEFAULT_JUDGE_MAX_TOKENS = 1024
const DEFAULT_TIMEOUT_MS = 120_000

export interface LlmJudgeOptions {
  /** Default `llm_judge`. */
  id?: string
  /**
   * `anthropic` (default): the Messages API. `openai`: Chat Completions, on OpenAI or any OpenAI-compatible
   * gateway (`baseURL`); needs the optional peer `openai`.
   */
  provider?: JudgeProvider
  /** What a good trial looks like, in plain words: the judge scores against this alone. */
  rubric: string
  /** Default `claude-sonnet-4-6` (DEFAULT_JUDGE_MODEL); `gpt-4.1` for provider `openai`. */
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
  /**
   * Used as is (an Anthropic client, or an OpenAI client for provider `openai`); otherwise a client is made at the
   * first evaluation from `apiKey` and `baseURL`.
   */
  client?: Anthropic | OpenAI
  /** Default `ANTHROPIC_BASE_URL` (`OPENAI_BASE_URL` for provider `openai`), else the public API. */
  baseURL?: string
  /**
   * Default `ANTHROPIC_API_KEY` (`OPENAI_API_KEY` for provider `openai`). Never written to a score, an event or
   * an error.
   */
  apiKey?: string
  /** Default 0 for repeatable verdicts; null leaves it out of the request (for models that refuse it). */
  temperature?: number | null
  /** Provider `openai`: send `response_format: { type: 'json_object' }` (default true; false for gateways that refuse it). */
  jsonResponseFormat?: boolean
  /** Transcript size cap; the middle of a longer trace is left out (default 20 000). */
  maxTranscriptChars?: number
  /** Per HTTP attempt (default 120 s). */
  timeoutMs?: number
  /** Backoff between attempts; tests shorten it. */
  retry?: Pick<CallMessagesOptions, 'baseDelayMs' | 'maxDelayMs' | 'sleep'>
}

interface JudgeConfig {
  id: string
  provider: JudgeProvider
  rubric: string
  model: string
  jsonResponseFormat: boolean
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
 * An evaluator that asks a model (Claude, or any model behind an OpenAI-compatible API) to grade the trial against
 * a rubric. Each of the k judgements is its own
 * conversation; every HTTP attempt (ok, malformed, rate-limited, failed) is recorded as an `evaluator.model_call`
 * event with its cost. When a judgement cannot be had (the API keeps failing, the replies are never a valid
 * verdict) it throws INFRA_FAILURE: the engine records "could not judge", never a pass or a fail of the agent.
 */
export function llmJudge(options: LlmJudgeOptions): Evaluator {
  const config = resolveConfig(options)
  let backend: Promise<JudgeBackend> | undefined
  return {
    id: config.id,
    kind: 'llm_judge',
    async evaluate(view, ctx) {
      // Made at the first evaluation, so defining a suite needs no API key until a judge actually runs.
      backend ??= backendFor(options, config).catch((e: unknown) => {
        backend = undefined
        throw e
      })
      return judge(await backend, config, view, ctx)
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
  return judge(await backendFor(options, config), config, view, ctx)
}

function backendFor(options: LlmJudgeOptions, config: JudgeConfig): Promise<JudgeBackend> {
  const settings: JudgeRequestSettings = {
    model: config.model,
    maxTokens: config.maxTokens,
    system: JUDGE_SYSTEM_PROMPT,
    temperature: config.temperature,
    jsonResponseFormat: config.jsonResponseFormat,
  }
  return createBackend(
    {
      id: config.id,
      provider: config.provider,
      client: options.client,
      apiKey: options.apiKey,
      baseURL: options.baseURL,
    },
    settings,
  )
}

interface Ledger {
  costUsd: number
  costUnknown: boolean
}

interface JudgeRun {
  backend: JudgeBackend
  config: JudgeConfig
  prompt: string
  steps: ReadonlySet<number>
  ctx: EvaluatorContext | undefined
  redact: (text: string) => string
  ledger: Ledger
}

async function judge(
  backend: JudgeBackend,
  config: JudgeConfig,
  view: TrialView,
  ctx: EvaluatorContext | undefined,
): Promise<EvaluatorOutput> {
  const { secrets } = backend
  const run: JudgeRun = {
    backend,
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
  const first: JudgeTurn = { role: 'user', content: run.prompt }
  let messages: JudgeTurn[] = [first]
  let attempt = 0
  let problem = ''
  for (let reply = 0; reply <= config.malformedRetries; reply++) {
    // The ok attempt is recorded only once its reply is read: only then is it known to be ok or malformed.
    const answered: { info?: AttemptInfo } = {}
    const call: CallMessagesOptions = {
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
    }
    const { text, truncated } = await run.backend.reply(messages, call)
    const parsed = parseVerdict(text, run.steps)
    if (parsed.ok) {
      record(run, repeat, attempt, 'ok', answered.info)
      return parsed.verdict
    }
    const cutOff = truncated ? ' (the reply was cut off at max_tokens)' : ''
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
  // An answered attempt without usage (some OpenAI-compatible servers send none) has a cost we cannot know.
  const priced = usage ? costOf(config.model, usage) : info?.status === 'ok' ? null : 0
  if (priced === null) {
    ledger.costUnknown = true
    warnUnpriced(config, usage === undefined)
  }
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

const warned = new Set<string>()

/** Once per model and process: a judge's spend that cannot be counted is worth knowing, not worth a crash. */
function warnUnpriced(config: JudgeConfig, noUsage: boolean): void {
  const key = `${config.model}\0${noUsage}`
  if (warned.has(key)) return
  warned.add(key)
  console.warn(
    noUsage
      ? `agentevalops: llm_judge "${config.id}": the ${config.provider} endpoint reported no token usage for ` +
          `${config.model}; its cost is counted as 0.`
      : `agentevalops: llm_judge "${config.id}": no price for model ${config.model} in the price table of ` +
          `${PRICES_AS_OF}; its cost is counted as 0 (add the model to src/models/pricing.ts).`,
  )
}

function fmt(n: number): string {
  return String(Math.round(n * 1000) / 1000)
}

function cut(text: string, max: number): string {
  const oneLine = text.trim().replace(/\s+/g, ' ')
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine
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
  const provider = options.provider ?? 'anthropic'
  if (!JUDGE_PROVIDERS.includes(provider))
    throw invalid(`provider must be one of ${JUDGE_PROVIDERS.join(', ')}, got ${String(provider)}`)
  const model = options.model ?? (provider === 'openai' ? DEFAULT_OPENAI_JUDGE_MODEL : DEFAULT_JUDGE_MODEL)
  if (model.trim() === '') throw invalid('model is empty')
  const temperature = options.temperature === undefined ? 0 : options.temperature
  // Chat Completions accepts up to 2; the Messages API up to 1.
  const maxTemperature = provider === 'openai' ? 2 : 1
  if (temperature !== null && !(temperature >= 0 && temperature <= maxTemperature))
    throw invalid(`temperature must be between 0 and ${maxTemperature}, got ${temperature}`)
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (!(timeoutMs > 0)) throw invalid(`timeoutMs must be > 0, got ${timeoutMs}`)
  return {
    id,
    provider,
    rubric: options.rubric,
    model,
    jsonResponseFormat: options.jsonResponseFormat ?? true,
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
