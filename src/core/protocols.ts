import type { JsonObject, JsonValue } from './json.ts'
import type {
  AgentResult,
  ArtifactRef,
  BenchmarkInfo,
  EvaluatorKind,
  EvaluatorScore,
  PolicyVerdict,
  ResourceLimits,
  RunMetadata,
  RunnerInfo,
  TaskSpec,
  TraceEvent,
  TraceEventKind,
  TracePayload,
} from './schemas.ts'
import type { ScoredTrial } from './scores-file.ts'
import type { RunSummary } from './summary.ts'

type MaybePromise<T> = T | Promise<T>

/** What a benchmark's prepare() hands the runner, and teardown() takes back. */
export interface EnvHandle {
  /** Working directory of the trial, when the benchmark prepares one. */
  workdir?: string
  [key: string]: unknown
}

export interface EmitUsage {
  tokens?: number
  costUsd?: number
}

/** One model exchange as a recording keeps it: what came back, and how each attempt went. */
export interface ModelExchange {
  response: JsonValue
  /**
   * What the caller reported per attempt (status, latency, usage, the error of a retried 429…), replayed with
   * the response so a replayed trial's trace is the recorded one, retries included.
   */
  attempts: JsonValue[]
  /** Set when every attempt failed: a replay fails the same way, with this message. */
  error?: string
}

/**
 * The door every model call of a trial goes through (the Anthropic runner, the LLM judge, the callable runner's
 * modelCall), so src/recording can record it or answer it from a recording. With recording off it just calls.
 */
export interface ModelCallGate {
  /**
   * Answers `request` (the call's normalised request: model, system, messages, tools, parameters) from the
   * recording, or runs `call` and keeps what it returns, as the recording mode says. Throws RECORDING_MISSING
   * when a replay has no recorded exchange for the request.
   */
  exchange(
    request: JsonObject,
    call: () => Promise<ModelExchange>,
  ): Promise<ModelExchange & { replayed: boolean }>
  /**
   * What a model call that cannot pass through `exchange` (a caller that has no request to key it by) may do
   * under this gate; absent, it is simply made. Set when recordings are on, so such a call is never silently
   * left out of them.
   */
  readonly unkeyed?: UnkeyedCalls
}

export interface UnkeyedCalls {
  /** `warn`: made, with a warning in the trial's record; `refuse`: an error (RECORDING_UNKEYED) instead. */
  action: 'warn' | 'refuse'
  /** Why, for the message: e.g. `AGENTEVALOPS_RECORD=record records every model call`. */
  because: string
}

/** What a trial has used so far, as the engine counts it from the emitted events. */
export interface UsageSoFar {
  tokens: number
  costUsd: number
  turns: number
  /** Since the run phase started. */
  wallSeconds: number
}

/** Handed to a runner for one trial. */
export interface RunContext {
  readonly limits: ResourceLimits
  /** The budget spent so far: a runner can stop cleanly before a limit instead of being stopped at it. */
  usage(): UsageSoFar
  /** Aborted when a limit is reached or the run is cancelled: pass it to every await that can take long. */
  readonly signal: AbortSignal
  /**
   * Record one trace event, with the tokens and cost it used. Returns the event's step number.
   * Throws a LIMIT_REACHED error once a limit is crossed, so a cooperative runner stops at that point.
   */
  emit<K extends Exclude<TraceEventKind, 'agent.terminal'>>(
    kind: K,
    payload: TracePayload<K>,
    usage?: EmitUsage,
  ): number
  /** A problem worth a line in the trial's warnings that does not fail it (e.g. a model with no known price). */
  warn(message: string): void
  /** Model calls go through here, so they can be recorded and replayed. */
  readonly modelCalls: ModelCallGate
  /**
   * Registers a file the trial produced (a CLI agent's stdout, a log). Registered artifacts are in the result even
   * when the runner never returns (a limit stopped it), which is when they are wanted most.
   */
  addArtifact(artifact: ArtifactRef): void
}

/** What the runner returns; the engine turns it into an AgentResult with usage it measured itself. */
export interface AgentOutput {
  finalAnswer: string | null
  success?: boolean
  artifacts?: AgentResult['artifacts']
  /** Set when the agent failed in its own logic (not infrastructure). */
  error?: string
}

export interface AgentRunner {
  runnerInfo(): RunnerInfo
  run(task: TaskSpec, env: EnvHandle, ctx: RunContext): Promise<AgentOutput>
}

export interface BenchmarkAdapter {
  readonly id: string
  readonly version: string
  listTasks(filter?: JsonObject): MaybePromise<TaskSpec[]>
  info(): MaybePromise<BenchmarkInfo>
  prepare?(task: TaskSpec): MaybePromise<EnvHandle>
  /**
   * The benchmark's own grading (HumanEval's executed tests, SWE-bench's FAIL_TO_PASS): it runs after the agent and
   * before teardown, with the workspace still there, and its result is a deterministic score with id
   * `<benchmark>-grade` beside the evaluators'. A wrong answer is a low score; throwing (the grader could not run,
   * crashed, or overran its time) means "could not grade" and makes the trial an infra failure.
   */
  grade?(view: TrialView, ctx: GradeContext): MaybePromise<GradeOutput>
  /** How long grade() may take, in seconds (default 600). */
  readonly gradeTimeoutSeconds?: number
  /**
   * The benchmark's own limits for a task (Harbor's `[agent] timeout_sec`). The engine applies, limit by limit, the
   * tighter of these and the run's, so a task's own time limit holds whatever runner the run uses.
   */
  taskLimits?(task: TaskSpec): ResourceLimits | undefined
  teardown?(task: TaskSpec, env: EnvHandle): MaybePromise<void>
}

/** Handed to a benchmark's grade() by the engine. */
export interface GradeContext {
  /** Aborted when the run is cancelled or grading overruns its time limit: kill what the grader started. */
  readonly signal: AbortSignal
  /** Seconds grading may take before the engine gives up on it (an infra failure). */
  readonly timeoutSeconds: number
  /**
   * Keeps a file of the trial in the bundle under `artifacts/` (e.g. the agent's `patch.diff`); returns its
   * ArtifactRef, which the engine adds to the trial's result. Names are relative paths (ARTIFACT_PATH_INVALID).
   */
  saveArtifact(name: string, data: string | Uint8Array): Promise<ArtifactRef>
  /** A line in the trial's warnings that does not fail it. */
  warn(message: string): void
}

/** What grade() returns: a score like an evaluator's; the engine adds the id, kind and latency. */
export type GradeOutput = EvaluatorOutput

/** Everything an evaluator or policy checker may look at. */
export interface TrialView {
  task: TaskSpec
  result: AgentResult
  events: readonly TraceEvent[]
  env: EnvHandle
}

/** What an evaluator returns; the engine adds its id, kind and the latency it measured. */
export type EvaluatorOutput = Omit<
  EvaluatorScore,
  'evaluatorId' | 'kind' | 'latencyMs' | 'citations' | 'findings' | 'error' | 'costUsd'
> &
  Partial<Pick<EvaluatorScore, 'citations' | 'findings' | 'costUsd'>>

/** Handed to an evaluator by the engine. Outside the engine (a matcher, a test) it may be absent. */
export interface EvaluatorContext {
  /** Aborted when the run is cancelled: pass it to model calls. */
  readonly signal: AbortSignal
  /** Records a harness event in the trial's trace (after the agent's own events); returns its step. */
  emit<K extends 'evaluator.model_call'>(kind: K, payload: TracePayload<K>, usage?: EmitUsage): number
  /** The trial's model-call gate: a judge's calls are recorded and replayed with the agent's. */
  readonly modelCalls?: ModelCallGate
  /** A line in the trial's warnings (kept in its record) that does not fail it. */
  warn?(message: string): void
}

/**
 * A pure function of the trial: it reads the task, result, trace and workspace and never changes them. A failed
 * agent gets a low score, not an exception; throwing means "could not judge" and is recorded as an evaluator error.
 */
export interface Evaluator {
  readonly id: string
  readonly kind: EvaluatorKind
  /**
   * The settings that shape its scores (a rubric, a threshold…), when it has any. They are part of a trial's score
   * key: a resumed run re-scores stored agent output whose evaluator settings changed.
   */
  readonly config?: JsonObject
  evaluate(view: TrialView, ctx?: EvaluatorContext): MaybePromise<EvaluatorOutput>
}

export interface PolicyChecker {
  readonly id: string
  /** The settings that shape its verdicts; part of a trial's score key like an evaluator's. */
  readonly config?: JsonObject
  check(view: TrialView): MaybePromise<Omit<PolicyVerdict, 'checkerId'>>
}

/** Turns a run's trials into its statistics (scores.json `summary`). A pure function: same trials, same summary. */
export interface Scorer {
  summarize(trials: readonly ScoredTrial[]): RunSummary
}

/** Appends one trial's events. An awaited append is durable. */
export interface TraceWriter {
  /** The trace's key in its store: a path relative to the store's root. */
  readonly path: string
  append(event: TraceEvent): Promise<void>
  /**
   * Writes what was appended, appends still in flight included, and closes: the trace recorder calls it without
   * waiting for its appends first. append() throws afterwards.
   */
  finalize(): Promise<void>
}

export interface TraceStore {
  open(key: { taskId: string; trial: number }): TraceWriter
  read(path: string): Promise<TraceEvent[]>
}

export interface ArtifactStore {
  put(name: string, data: string | Uint8Array): Promise<string>
  get(path: string): Promise<Uint8Array>
}

export interface ReportGenerator<Input> {
  readonly format: string
  render(input: Input): string
}

/** What a report is rendered from: a bundle's metadata.json and scores.json, nothing else. */
export interface ReportInput {
  metadata: RunMetadata
  trials: readonly ScoredTrial[]
  summary: RunSummary
  /** The bundle's trace events, for reports that show them (report.html's timelines); absent, they show none. */
  events?: readonly TraceEvent[]
}

/** A job for a CloudBackend: one process (a shard of a run), started in `cwd` with `env` added to the backend's. */
export interface JobSpec {
  /** A name for messages and file names (`shard-2-of-4`): letters, digits, `.`, `_`, `-`. */
  name: string
  /** The program and its arguments; never a shell line. */
  command: readonly string[]
  cwd: string
  /** Variables set for the job on top of the backend's environment (names of secrets, never their values). */
  env: Readonly<Record<string, string>>
  /** Where the job's console output (stdout and stderr) goes. */
  logFile: string
  /** The runs folder the job writes its bundle into: exportTelemetry reads the bundle's spans from there. */
  outputDir?: string
}

/** What submit returns: enough for status, cancel and exportTelemetry to find the job again. */
export interface JobHandle {
  backendId: string
  /** Unique within the backend (the local backend: `<name>@<pid>`). */
  jobId: string
  name: string
  logFile: string
}

export type JobState = 'running' | 'succeeded' | 'failed' | 'cancelled'

export interface JobStatus {
  state: JobState
  /** The job's exit code once it ended by itself (null while running or when a signal ended it). */
  exitCode: number | null
  /** The signal that ended it, when one did. */
  signal: string | null
  /** ISO 8601. */
  startedAt: string
  finishedAt: string | null
  logFile: string
}

/** A secret by name: where it lives is the backend's business (the local backend: an environment variable). */
export interface SecretRef {
  name: string
}

/**
 * The cloud primitives a run needs, and nothing more (the seed's ninth protocol): start a job, ask how it is, stop
 * it, read a secret, hand its telemetry on. Scheduling is the engines' (GitHub Actions, Kubernetes, AWS Batch):
 * a backend starts what it is given.
 */
export interface CloudBackend {
  readonly id: string
  submit(spec: JobSpec): Promise<JobHandle>
  status(handle: JobHandle): Promise<JobStatus>
  /** Stops the job and everything it started. Idempotent: cancelling an ended job changes nothing. */
  cancel(handle: JobHandle): Promise<void>
  /** The secret's value. Implementations never log it, and never put it in traces, bundles or artifacts. */
  fetchSecret(ref: SecretRef): Promise<string>
  /** Hands the job's spans (its bundle's spans.jsonl) to `destination`; returns the files written there. */
  exportTelemetry(handle: JobHandle, destination: string): Promise<string[]>
}
