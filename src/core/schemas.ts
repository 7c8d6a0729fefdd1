import * as z from 'zod'
import { JsonObject, JsonValue } from './json.ts'
import { MonitorLevel } from './monitor-wire.ts'

/**
 * Bundle format version written by this SDK. Readers accept every version up to this one. 2: ids out of scores.json;
 * 3: trace events name their benchmark.
 */
export const BUNDLE_FORMAT_VERSION = 3

const nonNegative = z.number().finite().nonnegative()
const count = z.number().int().nonnegative()
const isoTime = z.iso.datetime({ offset: true })

/**
 * What a runner, an evaluator or a benchmark's prepare threw: its type (`TypeError`, the class name), its `code` when
 * it has one (`ENOENT`, `INFRA_FAILURE`), its message, and the stack frames of the user's code, top first, redacted
 * (see core/thrown-error.ts: no frame of Node, of node_modules or of this package).
 */
export const ThrownError = z.object({
  type: z.string().min(1),
  code: z.string().optional(),
  message: z.string(),
  stack: z.array(z.string()).default([]),
})
export type ThrownError = z.infer<typeof ThrownError>

export const ToolSpec = z.object({
  name: z.string().min(1),
  description: z.string().default(''),
  inputSchema: JsonObject.default({}),
})
export type ToolSpec = z.infer<typeof ToolSpec>

export const TaskMetadata = z
  .object({
    category: z.string().optional(),
    split: z.string().optional(),
    difficulty: z.string().optional(),
  })
  .catchall(JsonValue)
export type TaskMetadata = z.infer<typeof TaskMetadata>

/**
 * How a task's answer is to be matched with what was expected, with the expected value already bound, as its
 * benchmark declares it (a dataset task's grader). matchesExpected() follows it, so the benchmark's grade and the
 * evaluator judge a task's `expected` the same way (see core/answer-match.ts, compareAnswer).
 */
export const AnswerMatch = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('exact'),
    value: z.string(),
    trim: z.boolean(),
    caseInsensitive: z.boolean(),
  }),
  z.strictObject({ type: z.literal('contains'), value: z.string().min(1), caseInsensitive: z.boolean() }),
  z.strictObject({ type: z.literal('regex'), pattern: z.string(), flags: z.string() }),
  z.strictObject({
    type: z.literal('numeric'),
    value: z.number().finite(),
    tolerance: nonNegative,
    relativeTolerance: nonNegative.optional(),
  }),
  z.strictObject({ type: z.literal('json'), value: JsonValue }),
])
export type AnswerMatch = z.infer<typeof AnswerMatch>
export type AnswerMatchType = AnswerMatch['type']

export const TaskSpec = z.object({
  id: z.string().min(1),
  benchmark: z.string().min(1),
  prompt: z.string(),
  input: JsonValue.optional(),
  expected: JsonValue.optional(),
  /** How `expected` is matched, when the benchmark declares it (absent: by the shape of `expected`). */
  match: AnswerMatch.optional(),
  tools: z.array(ToolSpec).optional(),
  metadata: TaskMetadata.default({}),
  /** sha256 of the task's content (see core/checksum.ts): changes when the task changes. */
  checksum: z.string().regex(/^[0-9a-f]{64}$/),
})
export type TaskSpec = z.infer<typeof TaskSpec>

export const ResourceLimits = z.object({
  maxTokens: count.optional(),
  maxTurns: count.optional(),
  maxWallSeconds: z.number().positive().optional(),
  maxCostUsd: nonNegative.optional(),
})
export type ResourceLimits = z.infer<typeof ResourceLimits>

export const TERMINATED_BY = [
  'completed',
  'limit_tokens',
  'limit_turns',
  'limit_time',
  'limit_cost',
  'agent_error',
  'infra_failure',
  'interrupted',
] as const
export const TerminatedBy = z.enum(TERMINATED_BY)
export type TerminatedBy = z.infer<typeof TerminatedBy>

export const TRACE_EVENT_KINDS = [
  'agent.plan',
  'agent.model_call',
  'agent.tool_call',
  'agent.tool_result',
  'agent.observation',
  'agent.final_answer',
  'agent.terminal',
  'evaluator.score',
  'evaluator.model_call',
  'policy.verdict',
  'cost.tick',
] as const
/** Events the harness writes about its own work (judging, policy): they never count against the agent's budget. */
export const HARNESS_EVENT_KINDS = ['evaluator.score', 'evaluator.model_call', 'policy.verdict'] as const
export const TraceEventKind = z.enum(TRACE_EVENT_KINDS)
export type TraceEventKind = z.infer<typeof TraceEventKind>

/** Payload shape per event kind. Extra keys are kept: runners may say more than we model. */
export const TracePayloads = {
  'agent.plan': z.looseObject({ text: z.string() }),
  'agent.model_call': z.looseObject({
    model: z.string().optional(),
    inputTokens: count.optional(),
    outputTokens: count.optional(),
    stopReason: z.string().optional(),
    text: z.string().optional(),
    /**
     * `error` marks an attempt that failed (a 429, a 5xx) and was retried or given up: it is in the trace so
     * retries are visible, but it is not a turn. Absent means `ok`.
     */
    status: z.enum(['ok', 'error']).optional(),
    attempt: z.number().int().positive().optional(),
    error: z.string().optional(),
  }),
  'agent.tool_call': z.looseObject({
    tool: z.string().min(1),
    args: JsonValue,
    callId: z.string().optional(),
  }),
  'agent.tool_result': z.looseObject({
    tool: z.string().min(1),
    result: JsonValue,
    isError: z.boolean().optional(),
    callId: z.string().optional(),
  }),
  'agent.observation': z.looseObject({ text: z.string() }),
  'agent.final_answer': z.looseObject({ answer: z.string() }),
  'agent.terminal': z.looseObject({
    terminatedBy: TerminatedBy,
    success: z.boolean(),
    error: z.string().nullable(),
    thrown: ThrownError.optional(),
  }),
  'evaluator.score': z.looseObject({
    evaluatorId: z.string(),
    score: z.number(),
    passed: z.boolean(),
    thrown: ThrownError.optional(),
  }),
  /** A model call made by an evaluator (an LLM judge), with what it cost; `status` says how the attempt ended. */
  'evaluator.model_call': z.looseObject({
    evaluatorId: z.string(),
    model: z.string(),
    attempt: z.number().int().positive(),
    status: z.enum(['ok', 'malformed', 'error']),
    latencyMs: nonNegative,
    inputTokens: count.optional(),
    outputTokens: count.optional(),
    error: z.string().optional(),
  }),
  'policy.verdict': z.looseObject({ checkerId: z.string(), verdict: z.enum(['PASS', 'WARN', 'FAIL']) }),
  'cost.tick': z.looseObject({ note: z.string().optional() }),
} satisfies Record<TraceEventKind, z.ZodType>

export type TracePayload<K extends TraceEventKind> = z.infer<(typeof TracePayloads)[K]>

const TraceEventBase = z.object({
  runId: z.string().min(1),
  /**
   * The benchmark id: two benchmarks of a run may share task ids, so a trial is (benchmark, taskId, trial). Written
   * from format 3 on; events of format 1 and 2 bundles have none and belong to the one benchmark with their task.
   */
  benchmark: z.string().min(1).optional(),
  taskId: z.string().min(1),
  trial: count,
  /** Monotonic within one trial, from 0. Evaluator citations point at these numbers. */
  step: count,
  ts: isoTime,
  costDeltaUsd: nonNegative.default(0),
  tokensDelta: count.default(0),
  spanId: z.string().regex(/^[0-9a-f]{16}$/),
})

export const TraceEvent = z.discriminatedUnion(
  'kind',
  TRACE_EVENT_KINDS.map((kind) =>
    TraceEventBase.extend({ kind: z.literal(kind), payload: TracePayloads[kind] }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
)
export type TraceEvent = {
  [K in TraceEventKind]: z.infer<typeof TraceEventBase> & { kind: K; payload: TracePayload<K> }
}[TraceEventKind]
export type TraceEventOf<K extends TraceEventKind> = Extract<TraceEvent, { kind: K }>

export const ArtifactRef = z.object({ name: z.string().min(1), path: z.string().min(1) })
export type ArtifactRef = z.infer<typeof ArtifactRef>

export const AgentResult = z.object({
  success: z.boolean(),
  finalAnswer: z.string().nullable(),
  artifacts: z.array(ArtifactRef).default([]),
  error: z.string().nullable(),
  totalCostUsd: nonNegative,
  totalTokens: count,
  turns: count,
  wallSeconds: nonNegative,
  terminatedBy: TerminatedBy,
  /** Set when the runner threw (or its prepare did): `error` is its message, this is the rest. Absent before. */
  thrown: ThrownError.optional(),
})
export type AgentResult = z.infer<typeof AgentResult>

export const EVALUATOR_KINDS = [
  'deterministic',
  'llm_judge',
  'tool_use',
  'state_based',
  'trace_quality',
] as const
export const EvaluatorKind = z.enum(EVALUATOR_KINDS)
export type EvaluatorKind = z.infer<typeof EvaluatorKind>

/** One thing an evaluator found, and the steps that show it. */
export const EvaluatorFinding = z.object({
  /** What was found, e.g. "loop", "unknown_tool", "file_missing": stable, for grouping in reports. */
  type: z.string().min(1),
  message: z.string(),
  citations: z.array(count).default([]),
})
export type EvaluatorFinding = z.infer<typeof EvaluatorFinding>

export const EvaluatorScore = z.object({
  evaluatorId: z.string().min(1),
  kind: EvaluatorKind,
  score: z.number().min(0).max(1),
  passed: z.boolean(),
  confidence: z.number().min(0).max(1).optional(),
  costUsd: nonNegative.default(0),
  latencyMs: nonNegative,
  explanation: z.string(),
  /** Step numbers of the trace events this score rests on. */
  citations: z.array(count).default([]),
  findings: z.array(EvaluatorFinding).default([]),
  /**
   * Set when the evaluator could not judge (it threw, its model kept failing): the score is then 0 and not a
   * verdict on the agent. The engine sets it; an evaluator signals it by throwing.
   */
  error: z.string().nullable().default(null),
  /** Set when the evaluator threw: its type and stack beside `error`. Absent in older bundles. */
  thrown: ThrownError.optional(),
})
export type EvaluatorScore = z.infer<typeof EvaluatorScore>

export const Verdict = z.enum(['PASS', 'WARN', 'FAIL'])
export type Verdict = z.infer<typeof Verdict>

export const PolicyFinding = z.object({
  message: z.string(),
  severity: Verdict.exclude(['PASS']),
  citations: z.array(count).default([]),
})
export type PolicyFinding = z.infer<typeof PolicyFinding>

export const PolicyVerdict = z.object({
  checkerId: z.string().min(1),
  verdict: Verdict,
  findings: z.array(PolicyFinding).default([]),
})
export type PolicyVerdict = z.infer<typeof PolicyVerdict>

export const RunnerInfo = z.object({
  /** Stable curated id, e.g. "mock-scripted" or "anthropic:claude-sonnet-4". */
  name: z.string().min(1),
  kind: z.string().min(1),
  /** Only the settings that shape results. Never credentials. */
  config: JsonObject.default({}),
})
export type RunnerInfo = z.infer<typeof RunnerInfo>

export const BenchmarkInfo = z.object({
  id: z.string().min(1),
  version: z.string(),
  datasetChecksum: z.string(),
  /**
   * How the run's tasks were chosen from the dataset (source file, ids, category, limit, shuffle seed, count), when
   * the benchmark selects: two runs compare only over the same selection.
   */
  selection: JsonObject.optional(),
})
export type BenchmarkInfo = z.infer<typeof BenchmarkInfo>

export const TRIAL_OUTCOMES = [
  'passed',
  'failed',
  'policy_violation',
  'limit_exceeded',
  'agent_error',
  'infra_failure',
  'not_evaluated',
  'interrupted',
] as const
export const TrialOutcome = z.enum(TRIAL_OUTCOMES)
export type TrialOutcome = z.infer<typeof TrialOutcome>

export const Usage = z.object({
  tokens: count,
  costUsd: nonNegative,
  wallSeconds: nonNegative,
  turns: count,
})
export type Usage = z.infer<typeof Usage>

export const TRIAL_PHASES = ['prepare', 'agent', 'evaluators', 'policy', 'teardown'] as const
export const TrialPhaseName = z.enum(TRIAL_PHASES)
export type TrialPhaseName = z.infer<typeof TrialPhaseName>

/**
 * When a trial's phases ran: what spans are drawn from. Offsets from `startedAt`, so a record stays small. The
 * benchmark's grading runs among the evaluators, as their first (see EvaluatorScore.latencyMs).
 */
export const TrialTiming = z.object({
  startedAt: isoTime,
  phases: z.array(z.object({ name: TrialPhaseName, startMs: nonNegative, durationMs: nonNegative })),
})
export type TrialTiming = z.infer<typeof TrialTiming>

/**
 * The parts of a trial's reuse keys, each hashed on its own, so that a resume can say which one changed. Bundles
 * from before they were kept have none.
 */
export const TrialKeyParts = z.object({
  task: z.string(),
  runner: z.string(),
  limits: z.string(),
  evaluators: z.string(),
  policy: z.string(),
  grader: z.string(),
})
export type TrialKeyParts = z.infer<typeof TrialKeyParts>

/** What one Vitest case hands the reporter through task.meta: small, plain JSON. */
export const TrialRecord = z.object({
  runId: z.string().min(1),
  benchmark: BenchmarkInfo,
  taskId: z.string().min(1),
  taskChecksum: z.string(),
  trial: count,
  outcome: TrialOutcome,
  passed: z.boolean(),
  result: AgentResult.nullable(),
  scores: z.array(EvaluatorScore),
  verdicts: z.array(PolicyVerdict),
  usage: Usage,
  runner: RunnerInfo,
  /** Trace file, relative to the run's staging folder. */
  tracePath: z.string().min(1),
  eventCount: count,
  warnings: z.array(z.string()).default([]),
  /** The task's string-valued metadata (category, split, difficulty, repo…): what reports group and cluster by. */
  labels: z.record(z.string(), z.string()).default({}),
  /**
   * What the trial's result depends on, hashed: `agent` over (benchmark, task checksum, trial, runner config, the
   * limits it ran under), `score` over that and the evaluators', policy checkers' and grader's settings. A resumed run reuses a trial whose keys
   * match, and re-scores one whose agent key alone matches.
   */
  keys: z
    .object({ agent: z.string(), score: z.string(), parts: TrialKeyParts.optional() })
    .nullable()
    .default(null),
  /** Set when the trial was taken over from an earlier run instead of run again. */
  reusedFrom: z
    .object({
      runId: z.string().min(1),
      /** `record`: taken whole; `rescored`: the agent's part taken, evaluators and policy run again. */
      mode: z.enum(['record', 'rescored']),
    })
    .nullable()
    .default(null),
  /**
   * When the trial's phases ran. Staged records carry it to the reporter, which draws spans from it; scores.json
   * leaves it out (wall-clock times would make equal runs write different files).
   */
  timing: TrialTiming.optional(),
})
export type TrialRecord = z.infer<typeof TrialRecord>

/** The trial numbers a run registered of one task of one benchmark. */
export const RegisteredTrials = z.object({
  benchmark: z.string().min(1),
  taskId: z.string().min(1),
  trials: z.array(count).min(1),
})
export type RegisteredTrials = z.infer<typeof RegisteredTrials>

/** A benchmark's aggregate gate: the share of its trials that pass must reach `minPassRate`. */
export const PassRateGate = z.object({
  benchmark: z.string().min(1),
  minPassRate: z.number().min(0).max(1),
})
export type PassRateGate = z.infer<typeof PassRateGate>

/** `monitor`: a window of production traces scored by `agentevalops monitor` (see `RunMetadata.monitor`). */
export const RunStatus = z.enum(['complete', 'interrupted', 'partial-shard', 'monitor'])
export type RunStatus = z.infer<typeof RunStatus>

/** What happened to the traces a monitor run read: every fetched trace lands in exactly one of these. */
export const MonitorCounts = z.object({
  /** Items the source yielded (traces that parsed and those that did not). */
  fetched: count,
  /** Items that did not parse as a trace: skipped, counted in every evaluator's skippedCount. */
  malformed: count,
  /** Left out by deterministic sampling (`--sampling-rate`). */
  sampledOut: count,
  /** Scored by an earlier run (the ledger). */
  alreadyScored: count,
  /** Still being written (ended within `--settle` of the run's start): left for a later run. */
  unsettled: count,
  /** Left out by `--max-traces` or `--max-cost-usd`. */
  capped: count,
  /** Fetched but not scored because the run was stopped (SIGTERM). */
  leftOut: count,
  /** The scorer failed on them: skipped, counted in every evaluator's skippedCount. */
  failed: count,
  scored: count,
})
export type MonitorCounts = z.infer<typeof MonitorCounts>

/** A monitor run: whose traces, which window, and how it ended. */
export const MonitorRunInfo = z.object({
  monitorName: z.string().min(1),
  monitorId: z.string().min(1),
  /** The run id the scheduler gave (`--run-id`); the bundle's own run id may add a rerun suffix. */
  runId: z.string().min(1),
  /** Traces that started in [start, end). */
  window: z.object({ start: isoTime, end: isoTime }),
  levels: z.array(MonitorLevel),
  counts: MonitorCounts.optional(),
  /** Why scoring stopped before the window's end; null when it did not. */
  stoppedBy: z.enum(['signal', 'max-traces', 'max-cost']).nullable().optional(),
})
export type MonitorRunInfo = z.infer<typeof MonitorRunInfo>

export const RunMetadata = z.object({
  /** Metadata of formats 1 to 3 is alike; the number follows the bundle's format. */
  schemaVersion: z.number().int().min(1).max(BUNDLE_FORMAT_VERSION),
  runId: z.string().min(1),
  status: RunStatus,
  labels: z.record(z.string(), z.string()).default({}),
  /** The runner of the first benchmark; `targets` lists all of them. */
  target: RunnerInfo.nullable(),
  targets: z.array(RunnerInfo),
  benchmark: BenchmarkInfo.nullable(),
  benchmarks: z.array(BenchmarkInfo),
  startedAt: isoTime,
  finishedAt: isoTime,
  durationSec: nonNegative,
  sdkVersion: z.string(),
  git: z.object({ sha: z.string().nullable(), dirty: z.boolean().nullable() }),
  node: z.string(),
  vitest: z.string(),
  configHash: z.string(),
  seed: z.number().int().nullable(),
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).nullable(),
  vitestProject: z.string(),
  testNamePattern: z.string().nullable(),
  trialCount: count,
  /**
   * The trials the run registered as Vitest cases (not those left out by `-t` or `.skip`), by benchmark and task:
   * validate-bundle checks that a complete bundle holds each of them and no other. Bundles written before it was
   * kept have none.
   */
  registeredTrials: z.array(RegisteredTrials).optional(),
  /**
   * What never reported back (a worker that died, as the OOM killer kills it): the test files and the registered
   * trials whose cases never ended. Such a run is `interrupted`, never `complete`; its staging folder is kept.
   */
  unreported: z.object({ files: z.array(z.string()), trials: z.array(RegisteredTrials) }).optional(),
  /**
   * Run ids of the bundles `agentevalops merge` made this one from (the shards, in shard order); absent in a bundle
   * that was not merged.
   */
  mergedFrom: z.array(z.string()).optional(),
  /** Run ids of the bundles this run resumed (`--resume`): its reused trials say which one each came from. */
  resumedFrom: z.array(z.string()).default([]),
  /**
   * What the shards of one run share (a hash of the config hash and the run key: AGENTEVALOPS_RUN_KEY or the CI's
   * run id), so that they can be found and checked together; null for a run that is no shard and had no run key.
   * Bundles written before it was kept have none.
   */
  runGroup: z.string().nullable().optional(),
  /**
   * The benchmarks' pass-rate gates (`gate: { minPassRate }`): a shard does not judge its part of the run against
   * them, the merge judges the whole. Bundles written before they were kept, and runs without one, have none.
   */
  gates: z.array(PassRateGate).optional(),
  /** A monitor run's window and what became of its traces; present exactly when status is `monitor`. */
  monitor: MonitorRunInfo.optional(),
})
export type RunMetadata = z.infer<typeof RunMetadata>

export const ManifestEntry = z.object({
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: count,
})
export const Manifest = z.object({
  formatVersion: z.number().int().min(1).max(BUNDLE_FORMAT_VERSION),
  runId: z.string().min(1),
  createdAt: isoTime,
  files: z.array(ManifestEntry),
})
export type Manifest = z.infer<typeof Manifest>

/**
 * One recorded model exchange: a line of a recording cassette (`__recordings__/…/<task>.jsonl`) and of a bundle's
 * `recordings.jsonl`. See docs/recordings.md.
 */
export const RecordedExchange = z.object({
  v: z.literal(1),
  /**
   * The benchmark id, since two benchmarks of an eval file may share task ids (and cassettes). Recordings made
   * before it was kept have none and answer the task's trials in any benchmark.
   */
  benchmark: z.string().min(1).optional(),
  taskId: z.string().min(1),
  trial: count,
  /** sha256 of the normalised request. */
  key: z.string().regex(/^[0-9a-f]{64}$/),
  /** The how-many-th identical request of this trial (a judge's k repeats ask the same thing k times). */
  ordinal: count,
  request: JsonObject,
  response: JsonValue,
  attempts: z.array(JsonValue),
  error: z.string().optional(),
  recordedAt: isoTime,
})
export type RecordedExchange = z.infer<typeof RecordedExchange>
