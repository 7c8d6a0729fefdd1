import * as z from 'zod'

/*
 * The vocabulary of a bundle's spans.jsonl, shared by what writes it (src/observability) and what checks it
 * (src/bundles): the file name, the span names and attributes agentevalops defines, and the shape of OTLP JSON.
 */

/** The bundle file of the run's spans: OTLP JSON, one ExportTraceServiceRequest per line. */
export const SPANS_FILE = 'spans.jsonl'

/** Span names that are ours (the GenAI ones are built from the operation name and a subject). */
export const SPAN = {
  run: 'eval.run',
  task: 'eval.task',
  prepare: 'benchmark.prepare',
  grade: 'benchmark.grade',
  evaluator: 'eval.evaluator',
  policy: 'eval.policy',
  teardown: 'benchmark.teardown',
  score: 'eval.score',
  report: 'eval.report',
} as const

/** Our own attributes, under one namespace so they never collide with a convention. */
export const AEO = {
  runId: 'agentevalops.run.id',
  runStatus: 'agentevalops.run.status',
  trialCount: 'agentevalops.run.trial_count',
  passRate: 'agentevalops.run.pass_rate',
  passRateLower: 'agentevalops.run.pass_rate.ci.lower',
  passRateUpper: 'agentevalops.run.pass_rate.ci.upper',
  passedTrials: 'agentevalops.run.passed_trials',
  benchmarks: 'agentevalops.run.benchmarks',
  runners: 'agentevalops.run.runners',
  gitSha: 'agentevalops.run.git.sha',
  vitestProject: 'agentevalops.run.vitest_project',
  comparisonVerdict: 'agentevalops.run.comparison.verdict',
  /** Prefix: a run label `suite=smoke` becomes `agentevalops.label.suite`. */
  labelPrefix: 'agentevalops.label.',
  /** Prefix: a task label `category=math` becomes `agentevalops.task.label.category`. */
  taskLabelPrefix: 'agentevalops.task.label.',
  benchmarkId: 'agentevalops.benchmark.id',
  benchmarkVersion: 'agentevalops.benchmark.version',
  taskId: 'agentevalops.task.id',
  trial: 'agentevalops.trial',
  outcome: 'agentevalops.outcome',
  passed: 'agentevalops.passed',
  reusedFrom: 'agentevalops.reused_from.run_id',
  runnerName: 'agentevalops.runner.name',
  runnerKind: 'agentevalops.runner.kind',
  costUsd: 'agentevalops.usage.cost_usd',
  tokens: 'agentevalops.usage.tokens',
  turns: 'agentevalops.usage.turns',
  wallSeconds: 'agentevalops.usage.wall_seconds',
  terminatedBy: 'agentevalops.agent.terminated_by',
  /** The trace event a span was drawn from: its `step` in traces.jsonl. */
  step: 'agentevalops.step',
  attempt: 'agentevalops.model_call.attempt',
  evaluatorId: 'agentevalops.evaluator.id',
  evaluatorKind: 'agentevalops.evaluator.kind',
  score: 'agentevalops.evaluator.score',
  latencyMs: 'agentevalops.evaluator.latency_ms',
  checkerId: 'agentevalops.policy.checker_id',
  verdict: 'agentevalops.policy.verdict',
  findings: 'agentevalops.policy.findings',
  /** How a span's times were found: `timing` (measured phases) or `events` (trace event timestamps). */
  timeSource: 'agentevalops.time_source',
} as const

const Hex = (length: number) => z.string().regex(new RegExp(`^[0-9a-f]{${length}}$`))
/**
 * OTLP JSON writes 64-bit integers as strings, but readers must accept numbers too (nanosecond times are beyond
 * a double's exact range, so a number is taken as it comes).
 */
const Uint64 = z.union([z.string().regex(/^\d+$/), z.number().nonnegative()])

const AnyValue: z.ZodType<unknown> = z.lazy(() =>
  z
    .object({
      stringValue: z.string().optional(),
      boolValue: z.boolean().optional(),
      intValue: z.union([z.string().regex(/^-?\d+$/), z.number()]).optional(),
      doubleValue: z.union([z.number(), z.string()]).optional(),
      arrayValue: z.object({ values: z.array(AnyValue).optional() }).optional(),
      kvlistValue: z.object({ values: z.array(KeyValue).optional() }).optional(),
      bytesValue: z.string().optional(),
    })
    .loose(),
)
const KeyValue = z.object({ key: z.string(), value: AnyValue.optional() }).loose()

export const OtlpSpan = z
  .object({
    traceId: Hex(32),
    spanId: Hex(16),
    parentSpanId: z.union([Hex(16), z.literal('')]).optional(),
    name: z.string(),
    kind: z.number().int().min(0).max(5).optional(),
    startTimeUnixNano: Uint64,
    endTimeUnixNano: Uint64,
    attributes: z.array(KeyValue).optional(),
    events: z
      .array(
        z
          .object({ name: z.string(), timeUnixNano: Uint64, attributes: z.array(KeyValue).optional() })
          .loose(),
      )
      .optional(),
    status: z
      .object({ code: z.number().int().min(0).max(2).optional(), message: z.string().optional() })
      .loose()
      .optional(),
  })
  .loose()
export type OtlpSpan = z.infer<typeof OtlpSpan>

export const OtlpTraceRequest = z
  .object({
    resourceSpans: z.array(
      z
        .object({
          resource: z
            .object({ attributes: z.array(KeyValue).optional() })
            .loose()
            .optional(),
          scopeSpans: z.array(
            z
              .object({
                scope: z
                  .object({ name: z.string().optional(), version: z.string().optional() })
                  .loose()
                  .optional(),
                spans: z.array(OtlpSpan),
              })
              .loose(),
          ),
        })
        .loose(),
    ),
  })
  .loose()
export type OtlpTraceRequest = z.infer<typeof OtlpTraceRequest>
