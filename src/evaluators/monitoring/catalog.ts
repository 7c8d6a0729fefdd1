import * as z from 'zod'
import {
  JsonValue,
  ToolSpec,
  type Evaluator,
  type EvaluatorOutput,
  type MonitorJudgeSettings,
} from '../../core/index.ts'
import {
  checkWithinBudget,
  contains,
  exactMatch,
  JUDGE_RULES,
  jsonSchemaValid,
  llmJudge,
  ReferenceCall,
  regexMatch,
  toolUse,
  TRACE_QUALITY_FINDING_TYPES,
  traceQuality,
  TRAJECTORY_MODES,
  trajectoryMatch,
  type LlmJudgeOptions,
} from '../../evaluators/index.ts'
import { fillTemplate } from './judge-template.ts'

/*
 * The built-in evaluators a monitor can run, by identifier: those that judge a trace alone, without a workspace or
 * a task's expected answer (production traffic has neither). Options are snake_case, as in the seed's configs and
 * our RunConfig YAML, and strict: a typo is an error before any trace is read.
 */

/** How the judge reaches its model: from the job's environment (LLM_API_BASE / LLM_API_KEY), never a config. */
type JudgeSettings = MonitorJudgeSettings

interface CatalogEntry<S extends z.ZodObject = z.ZodObject> {
  options: S
  build(id: string, options: z.output<S>, judge: JudgeSettings): Evaluator
}

function entry<S extends z.ZodObject>(
  options: S,
  build: (id: string, options: z.output<S>, judge: JudgeSettings) => Evaluator,
): CatalogEntry {
  return { options, build }
}

/** Options objects without the keys left undefined: some factories reject an explicit undefined. */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

/** A budget (the seed's `latency`, our trace checks' checkWithinBudget) as an evaluator: 1 within, 0 over. */
function budgetEvaluator(
  id: string,
  budget: { tokens?: number; costUsd?: number; seconds?: number; turns?: number },
): Evaluator {
  return {
    id,
    kind: 'deterministic',
    config: { budget: definedOnly(budget) },
    evaluate(view): EvaluatorOutput {
      const check = checkWithinBudget({ events: view.events, result: view.result }, budget)
      return {
        score: check.pass ? 1 : 0,
        passed: check.pass,
        explanation: check.message,
        citations: check.steps,
      }
    },
  }
}

const JudgeOptions = z.strictObject({
  prompt_template: z.string().min(1).optional(),
  rubric: z.string().min(1).optional(),
  criteria: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  repeats: z.number().int().positive().optional(),
  rule: z.enum(JUDGE_RULES).optional(),
  threshold: z.number().min(0).max(1).optional(),
})
export type JudgeOptions = z.output<typeof JudgeOptions>

/** The rubric a judge's options give: the template, the rubric, or the criteria alone. */
function rubricOf(o: JudgeOptions): string {
  return o.prompt_template ?? o.rubric ?? `Judge the agent's answer on: ${o.criteria ?? ''}`
}

function judgeEvaluator(id: string, o: JudgeOptions, judge: JudgeSettings): Evaluator {
  const base = definedOnly({
    id,
    model: o.model,
    maxTokens: o.max_tokens,
    repeats: o.repeats,
    rule: o.rule,
    threshold: o.threshold,
    baseURL: judge.baseURL,
    apiKey: judge.apiKey,
  })
  // `provider` is the judge's own option where it exists (an OpenAI-compatible gateway); passed through as is.
  const settings: Omit<LlmJudgeOptions, 'rubric'> & { provider?: JudgeSettings['provider'] } = {
    ...base,
    ...(judge.provider ? { provider: judge.provider } : {}),
  }
  const template = o.prompt_template
  const config = { judge: definedOnly({ ...o }) }
  if (template === undefined || !/\{[a-z_]+\}/.test(template)) {
    const fixed: LlmJudgeOptions = { ...settings, rubric: rubricOf(o) }
    return { ...llmJudge(fixed), config }
  }
  // A template's placeholders depend on the trial, so its rubric is filled for each one it judges.
  return {
    id,
    kind: 'llm_judge',
    config,
    evaluate(view, ctx) {
      const options: LlmJudgeOptions = { ...settings, rubric: fillTemplate(template, view, o.criteria) }
      return llmJudge(options).evaluate(view, ctx)
    },
  }
}

export const MONITOR_EVALUATORS: Readonly<Record<string, CatalogEntry>> = {
  'tool-use': entry(z.strictObject({ tools: z.array(ToolSpec).optional() }), (id, o) =>
    toolUse(definedOnly({ id, tools: o.tools })),
  ),
  'trajectory-match': entry(
    z.strictObject({
      reference: z.array(ReferenceCall).optional(),
      mode: z.enum(TRAJECTORY_MODES).optional(),
      args: z
        .record(
          z.string(),
          z.union([z.enum(['exact', 'subset']), z.strictObject({ tolerance: z.number().nonnegative() })]),
        )
        .optional(),
    }),
    // Production traces carry no reference of their own: without one in the config there is nothing to compare.
    (id, o) =>
      trajectoryMatch(
        definedOnly({ id, reference: o.reference, mode: o.mode, args: o.args, requireReference: false }),
      ),
  ),
  'trace-quality': entry(
    z.strictObject({
      min_repeats: z.number().int().min(2).optional(),
      max_cycle_length: z.number().int().min(2).optional(),
      min_cycle_repeats: z.number().int().min(2).optional(),
      idempotent_tools: z.array(z.string()).optional(),
      fail_on: z.array(z.enum(TRACE_QUALITY_FINDING_TYPES)).optional(),
    }),
    (id, o) =>
      traceQuality(
        definedOnly({
          id,
          minRepeats: o.min_repeats,
          maxCycleLength: o.max_cycle_length,
          minCycleRepeats: o.min_cycle_repeats,
          idempotentTools: o.idempotent_tools,
          failOn: o.fail_on,
        }),
      ),
  ),
  'exact-match': entry(
    z.strictObject({
      expected: z.string(),
      case_insensitive: z.boolean().optional(),
      trim: z.boolean().optional(),
    }),
    (id, o) =>
      exactMatch(
        definedOnly({ id, expected: o.expected, caseInsensitive: o.case_insensitive, trim: o.trim }),
      ),
  ),
  contains: entry(
    z.strictObject({ expected: z.string().min(1), case_insensitive: z.boolean().optional() }),
    (id, o) => contains(definedOnly({ id, expected: o.expected, caseInsensitive: o.case_insensitive })),
  ),
  'regex-match': entry(
    z.strictObject({ pattern: z.string().min(1), flags: z.string().optional() }),
    (id, o) => regexMatch(definedOnly({ id, pattern: o.pattern, flags: o.flags })),
  ),
  'json-schema': entry(z.strictObject({ schema: z.record(z.string(), JsonValue) }), (id, o) =>
    jsonSchemaValid({ id, schema: o.schema }),
  ),
  budget: entry(
    z
      .strictObject({
        max_tokens: z.number().int().nonnegative().optional(),
        max_cost_usd: z.number().nonnegative().optional(),
        max_seconds: z.number().positive().optional(),
        max_turns: z.number().int().nonnegative().optional(),
      })
      .refine((o) => Object.values(o).some((v) => v !== undefined), {
        message: 'give at least one of max_tokens, max_cost_usd, max_seconds, max_turns',
      }),
    (id, o) =>
      budgetEvaluator(
        id,
        definedOnly({
          tokens: o.max_tokens,
          costUsd: o.max_cost_usd,
          seconds: o.max_seconds,
          turns: o.max_turns,
        }),
      ),
  ),
  // The seed's latency evaluator: the trace (or span) took at most max_latency_ms.
  latency: entry(z.strictObject({ max_latency_ms: z.number().positive() }), (id, o) =>
    budgetEvaluator(id, { seconds: o.max_latency_ms / 1000 }),
  ),
  'llm-judge': entry(JudgeOptions, judgeEvaluator),
}

/** `llm_judge` (the seed's spelling) is our `llm-judge`. */
export const IDENTIFIER_ALIASES: Readonly<Record<string, string>> = { llm_judge: 'llm-judge' }

/** Built-in evaluators that need what a production trace does not have, and why. */
export const NOT_FOR_MONITORING: Readonly<Record<string, string>> = {
  state: 'it checks the workspace a trial left behind, and a production trace has none',
  'matches-expected': "it compares with the task's expected answer, and a production trace has none",
  'json-equal': "it compares with the task's expected answer, and a production trace has none",
  'numeric-match': "it compares with the task's expected answer, and a production trace has none",
}
