import * as z from 'zod'
import type { JsonObject } from './json.ts'
import type { Evaluator } from './protocols.ts'

/*
 * The wire formats of the seed's monitor job (wso2/agent-manager: the traces service's `/api/v1/traces/export` and
 * the publisher's `/api/v1/publisher/monitors/{monitorId}/runs/{runId}/scores`). These are formats we are compatible
 * with, not ours: every field keeps the seed's name. Parsed once, where a response or a file comes in.
 */

const isoTime = z.iso.datetime({ offset: true })

/** One span as the traces service exports it; `ampAttributes` carries the semantic view (see AmpAttributes). */
export const AmpSpan = z.object({
  traceId: z.string().min(1),
  spanId: z.string().min(1),
  parentSpanId: z.string().nullish(),
  name: z.string(),
  service: z.string(),
  startTime: isoTime,
  endTime: isoTime,
  durationInNanos: z.number().nonnegative(),
  /** OpenTelemetry span kind: CLIENT, SERVER, PRODUCER, CONSUMER, INTERNAL (UNSPECIFIED tolerated). */
  kind: z.string(),
  /** OK, ERROR, UNSET. */
  status: z.string(),
  attributes: z.record(z.string(), z.unknown()).default({}),
  ampAttributes: z.record(z.string(), z.unknown()).default({}),
})
export type AmpSpan = z.infer<typeof AmpSpan>

export const AmpTokenUsage = z.object({
  inputTokens: z.number().nonnegative().default(0),
  outputTokens: z.number().nonnegative().default(0),
  totalTokens: z.number().nonnegative().default(0),
})
export type AmpTokenUsage = z.infer<typeof AmpTokenUsage>

/** A whole trace (the traces service's FullTrace schema). */
export const FullTrace = z.object({
  traceId: z.string().min(1),
  rootSpanId: z.string().min(1),
  rootSpanName: z.string(),
  startTime: isoTime,
  endTime: isoTime,
  spans: z.array(AmpSpan),
  rootSpanKind: z.string().nullish(),
  durationInNanos: z.number().nonnegative().nullish(),
  spanCount: z.number().int().nonnegative().nullish(),
  tokenUsage: AmpTokenUsage.nullish(),
  status: z.object({ errorCount: z.number().int().nonnegative().default(0) }).nullish(),
  input: z.unknown(),
  output: z.unknown(),
  /** From the trace's baggage, when it was made by an evaluation experiment. */
  taskId: z.string().nullish(),
  trialId: z.string().nullish(),
})
export type FullTrace = z.infer<typeof FullTrace>

/**
 * The semantic part of a span (`ampAttributes`), as the seed's parser reads it. Every source maps into this shape
 * (OTLP GenAI / OpenInference attributes, Langfuse observations), so scoring reads one format. Parsed leniently:
 * a span whose ampAttributes do not fit is scored as `kind: 'unknown'`.
 */
export const AmpAttributes = z.looseObject({
  /** llm, tool, agent, retriever, embedding, chain, task…; anything else counts as unknown. */
  kind: z.string().default('unknown'),
  /** llm: the messages sent; tool: the arguments; agent: the task input. */
  input: z.unknown().optional(),
  /** llm: the reply (text or { content, toolCalls }); tool: the result; agent: the final answer. */
  output: z.unknown().optional(),
  status: z.looseObject({ error: z.boolean().default(false), errorType: z.string().nullish() }).optional(),
  error: z.looseObject({ message: z.string().nullish() }).optional(),
  data: z
    .looseObject({
      /** tool: the tool's name; agent: the agent's name. */
      name: z.string().optional(),
      model: z.string().optional(),
      vendor: z.string().optional(),
      temperature: z.number().nullish(),
      tokenUsage: AmpTokenUsage.partial().optional(),
      /** agent: the tools it was given ({ name, description?, parameters? }). */
      tools: z.array(z.unknown()).optional(),
    })
    .optional(),
})
export type AmpAttributes = z.infer<typeof AmpAttributes>

/** A score's level: one per trace, one per agent span, one per LLM span. */
export const MonitorLevel = z.enum(['trace', 'agent', 'llm'])
export type MonitorLevel = z.infer<typeof MonitorLevel>

/** One score of the publish payload: `score` when the evaluator judged, `skipReason` when it could not. */
export const IndividualScore = z
  .object({
    evaluatorName: z.string().min(1),
    level: MonitorLevel,
    traceId: z.string().min(1),
    score: z.number().min(0).max(1).optional(),
    skipReason: z.string().min(1).optional(),
    explanation: z.string().optional(),
    traceStartTime: isoTime.optional(),
    spanContext: z
      .object({
        spanId: z.string().min(1),
        agentName: z.string().optional(),
        model: z.string().optional(),
        vendor: z.string().optional(),
      })
      .optional(),
  })
  .strict()
  .refine((s) => (s.score === undefined) !== (s.skipReason === undefined), {
    message: 'a score has either `score` or `skipReason`, never both or neither',
  })
export type IndividualScore = z.infer<typeof IndividualScore>

export const AggregatedScore = z
  .object({
    identifier: z.string().min(1),
    evaluatorName: z.string().min(1),
    level: MonitorLevel,
    /** By aggregation name (mean, median, p50, pass_rate…); null when nothing was scored. */
    aggregations: z.record(z.string(), z.number().nullable()),
    count: z.number().int().nonnegative(),
    skippedCount: z.number().int().nonnegative(),
  })
  .strict()
export type AggregatedScore = z.infer<typeof AggregatedScore>

/** The body POSTed to the publisher, checked before it is sent. */
export const ScoresPayload = z
  .object({ individualScores: z.array(IndividualScore), aggregatedScores: z.array(AggregatedScore) })
  .strict()
export type ScoresPayload = z.infer<typeof ScoresPayload>

/** How an LLM judge of a monitor reaches its model: from the job's environment (LLM_API_BASE / LLM_API_KEY). */
export interface MonitorJudgeSettings {
  baseURL?: string | undefined
  apiKey?: string | undefined
  provider?: 'anthropic' | 'openai' | undefined
}

/**
 * One evaluator of a monitor (an entry of `--evaluators`), checked: made by parseMonitorEvaluators (src/evaluators,
 * which knows the evaluators), used by the trace scorer (src/monitor, which may not import them).
 */
export interface MonitorEvaluatorSpec {
  /** Our evaluator's identifier (aliases resolved: `llm_judge` → `llm-judge`). */
  identifier: string
  /** As given: the payload names the evaluator's scores by it; unique within a monitor. */
  displayName: string
  /** As given, when it was. */
  type: string | null
  level: MonitorLevel
  /** Its options, as given (snake_case). */
  config: JsonObject
  /**
   * A hash of identifier, level and config, with our package version: part of every score id, so a changed
   * config or another scorer version gives new ids and a rerun of the same config the same ones.
   */
  version: string
  /** The evaluator, named by displayName; `judge` reaches an LLM judge's model. */
  create(judge: MonitorJudgeSettings): Evaluator
}
