import {
  ResourceLimits,
  type ArtifactRef,
  RunnerInfo,
  type TrialRecord,
  errorMessage,
  type AgentResult,
  type AgentRunner,
  type BenchmarkInfo,
  type EnvHandle,
  passThroughGate,
  redactorFromEnv,
  type Redactor,
  type EvaluatorScore,
  type ModelCallGate,
  type Evaluator,
  type PolicyChecker,
  type PolicyVerdict,
  type TaskSpec,
  type TraceEvent,
  type TraceStore,
  type TrialView,
  type Usage,
  describeThrown,
  type ThrownError,
} from '../core/index.ts'
import {
  DEFAULT_GRADE_TIMEOUT_SECONDS,
  gradeEvaluator,
  tempArtifacts,
  type GradeFn,
  type TrialArtifacts,
} from './grade.ts'
import { runEvaluators, runPolicyCheckers } from './judge.ts'
import { trialLimits } from './limits.ts'
import { classifyOutcome } from './outcome.ts'
import { PhaseClock } from './phase-clock.ts'
import { runAgent } from './run-agent.ts'
import { TraceRecorder } from './trace-recorder.ts'
import { trialKeys, type TrialKeys } from './trial-keys.ts'

type MaybePromise<T> = T | Promise<T>

export interface RunTrialOptions {
  runId: string
  benchmark: BenchmarkInfo
  task: TaskSpec
  trial: number
  runner: AgentRunner
  prepare?: ((task: TaskSpec) => MaybePromise<EnvHandle>) | undefined
  /** The benchmark's own grading: a score `<benchmark>-grade` before the evaluators', workspace still present. */
  grade?: GradeFn | undefined
  /** Default DEFAULT_GRADE_TIMEOUT_SECONDS; overrunning it is an infra failure. */
  gradeTimeoutSeconds?: number | undefined
  /** Where the trial's artifacts (a grader's patch.diff) go; default a folder under the temp folder. */
  artifacts?: TrialArtifacts | undefined
  teardown?: ((task: TaskSpec, env: EnvHandle) => MaybePromise<void>) | undefined
  evaluators?: readonly Evaluator[] | undefined
  policy?: readonly PolicyChecker[] | undefined
  limits?: ResourceLimits | undefined
  /** The benchmark's own limits for this task (BenchmarkAdapter.taskLimits): the tighter of each limit applies. */
  taskLimits?: ResourceLimits | undefined
  traceStore: TraceStore
  /** External cancel, e.g. the Vitest test context's signal: the trial ends as `interrupted`. */
  signal?: AbortSignal | undefined
  /** The trial's model-call gate (src/recording): its runner's and judges' calls are recorded or replayed. */
  modelCalls?: ModelCallGate | undefined
  onWarning?: ((msg: string) => void) | undefined
  /**
   * Replaces secrets in everything the trial writes (trace events, the agent's result, scores, warnings); default:
   * the secrets of this process's environment (see core/redaction.ts).
   */
  redactor?: Redactor | undefined
  /**
   * Take this trial over from an earlier run instead of running the agent (`--resume`): `record` copies its trace and
   * verdicts whole; `rescored` copies the agent's part and runs the evaluators and policy checkers again.
   */
  reuse?: TrialReuse | undefined
  /** The trial's keys when the caller computed them already (to look for a trial to reuse); else computed here. */
  keys?: TrialKeys | undefined
}

export interface TrialReuse {
  mode: 'record' | 'rescored'
  /** The earlier record; `runId` is the earlier run's. */
  from: TrialRecord
  /** Its events, in step order. */
  events: readonly TraceEvent[]
}

export interface TrialRun {
  record: TrialRecord
  /** Every event of the trial, as written to its trace. */
  events: TraceEvent[]
  /** Null when the trial never ran (prepare failed). */
  result: AgentResult | null
}

const NEVER_ABORTED = new AbortController().signal

const UNKNOWN_RUNNER: RunnerInfo = { name: 'unknown', kind: 'unknown', config: {} }

/**
 * Runs one task × trial: prepare → run → evaluate → policy → teardown, streaming the trace as it goes.
 * Every caller (plugin, CLI, resume, replay, monitor) goes through here, so a trial means the same thing
 * everywhere. It resolves with a record for every trial it could start, whatever the runner or the benchmark did.
 */
export async function runTrial(options: RunTrialOptions): Promise<TrialRun> {
  const { task, trial, runId } = options
  const limits = trialLimits(options.limits, options.taskLimits)
  const redactor = options.redactor ?? redactorFromEnv(process.env)
  const warnings: string[] = []
  const warn = (raw: string): void => {
    const msg = redactor.string(raw)
    warnings.push(msg)
    options.onWarning?.(msg)
  }
  const runner = describeRunner(options.runner, warn)
  const clock = new PhaseClock()
  const recorder = new TraceRecorder(
    { runId, benchmark: options.benchmark.id, taskId: task.id, trial },
    options.traceStore.open({ taskId: task.id, trial }),
    redactor,
  )

  let result: AgentResult | null = null
  let scores: EvaluatorScore[] = []
  let verdicts: PolicyVerdict[] = []
  let harnessFailed = false
  const saved: ArtifactRef[] = []
  const grader = options.grade
    ? gradeEvaluator({
        benchmarkId: options.benchmark.id,
        grade: options.grade,
        timeoutSeconds: options.gradeTimeoutSeconds ?? DEFAULT_GRADE_TIMEOUT_SECONDS,
        artifacts: options.artifacts ?? tempArtifacts(runId, options.benchmark.id, task.id, trial),
        saved,
        warn,
      })
    : undefined

  // Evaluators and policy checkers over a finished agent run, their verdicts streamed into the trace.
  const judge = async (view: TrialView): Promise<void> => {
    const evaluators = grader ? [grader, ...(options.evaluators ?? [])] : (options.evaluators ?? [])
    const evaluated = await clock.time('evaluators', () =>
      runEvaluators(evaluators, view, {
        signal: options.signal ?? NEVER_ABORTED,
        modelCalls: options.modelCalls ?? passThroughGate,
        warn,
        emit: (kind, payload, usage) =>
          recorder.record(kind, payload, usage?.tokens ?? 0, usage?.costUsd ?? 0).step,
      }),
    )
    scores = evaluated.items
    for (const s of scores) recorder.record('evaluator.score', { ...s })
    const checked = await clock.time('policy', () => runPolicyCheckers(options.policy ?? [], view))
    verdicts = checked.items
    for (const v of verdicts) recorder.record('policy.verdict', { ...v })
    for (const failure of [...evaluated.failures, ...checked.failures]) warn(failure)
    harnessFailed = evaluated.failures.length > 0 || checked.failures.length > 0
    // What the grader kept (the agent's diff) belongs to the trial's result, beside the runner's own artifacts.
    if (saved.length > 0 && result) result = { ...result, artifacts: [...result.artifacts, ...saved] }
  }

  const reuse = options.reuse
  if (reuse) {
    // The earlier run's agent part stands as it was (steps, times, span ids); only the run id is this run's.
    const cut = reuse.events.findIndex((e) => e.kind === 'agent.terminal')
    const agentPart = reuse.mode === 'record' ? reuse.events : reuse.events.slice(0, cut + 1)
    for (const event of agentPart) recorder.copy(event)
    result = reuse.from.result
    if (reuse.mode === 'record') {
      scores = reuse.from.scores
      verdicts = reuse.from.verdicts
      for (const w of reuse.from.warnings) warn(w)
    } else if (result && result.terminatedBy !== 'interrupted') {
      // Re-scored without the workspace, which went with the earlier run: state checks see none.
      await judge({ task, result, events: recorder.events.slice(), env: {} })
    }
  } else {
    const prepared = await clock.time('prepare', () => prepareEnv(options, warn))
    if (!prepared.ok) {
      // The trial never ran; a terminal event still keeps its trace file consistent with every other one.
      // Its result stays null; what prepare threw is kept in the trace.
      recorder.record(
        'agent.terminal',
        terminalPayload(notRun(`prepare failed: ${prepared.error}`, prepared.thrown)),
      )
    } else {
      const env = prepared.env
      try {
        // Evaluators judge what the bundle will show: the result with its secrets replaced.
        result = redactor.json(
          await clock.time('agent', () =>
            runAgent({
              runner: options.runner,
              task,
              env,
              limits,
              recorder,
              signal: options.signal,
              warn,
              modelCalls: options.modelCalls,
            }),
          ),
        )
        recorder.record('agent.terminal', terminalPayload(result))
        // A cancelled run is not worth judging (an LLM judge would only spend money the user chose not to spend).
        if (result.terminatedBy !== 'interrupted')
          await judge({ task, result, events: recorder.events.slice(), env })
      } finally {
        const teardown = options.teardown
        if (teardown) {
          try {
            await clock.time('teardown', async () => teardown(task, env))
          } catch (e) {
            warn(`teardown failed: ${errorMessage(e)}`)
          }
        }
      }
    }
  }

  const writeError = await recorder.close()
  if (writeError !== null) {
    warn(`the trace could not be saved: ${errorMessage(writeError)}`)
    harnessFailed = true
  }

  const outcome = classifyOutcome({ result, scores, verdicts, harnessFailed })
  const usage: Usage = result
    ? {
        tokens: result.totalTokens,
        costUsd: result.totalCostUsd,
        wallSeconds: result.wallSeconds,
        turns: result.turns,
      }
    : { tokens: 0, costUsd: 0, wallSeconds: 0, turns: 0 }
  // Built by the engine from parts checked where they came in (the runner's output, each score and verdict, the
  // runner's info, the task and benchmark at registration), so the compiler, not a parse, vouches for its shape.
  // What has not been redacted yet is redacted here: the agent's result was, unless it came from elsewhere.
  const redacted = redactor.json({
    benchmark: options.benchmark,
    taskId: task.id,
    taskChecksum: task.checksum,
    scores,
    verdicts,
    runner,
    tracePath: recorder.path,
    labels: taskLabels(task),
  })
  // In the schema's order, as a parse would have written it: the files the record lands in stay byte for byte.
  const record: TrialRecord = {
    runId,
    benchmark: redacted.benchmark,
    taskId: redacted.taskId,
    taskChecksum: redacted.taskChecksum,
    trial,
    outcome,
    passed: outcome === 'passed',
    result: result && (reuse || saved.length > 0) ? redactor.json(result) : result,
    scores: redacted.scores,
    verdicts: redacted.verdicts,
    usage,
    runner: redacted.runner,
    tracePath: redacted.tracePath,
    eventCount: recorder.events.length,
    warnings,
    labels: redacted.labels,
    keys:
      options.keys ??
      trialKeys({
        benchmark: options.benchmark,
        task,
        trial,
        runner,
        limits,
        evaluators: options.evaluators,
        policy: options.policy,
        grader: options.grade ? options.benchmark.version : undefined,
      }),
    reusedFrom: reuse ? { runId: reuse.from.runId, mode: reuse.mode } : null,
    timing: clock.timing(),
  }
  return { record, events: recorder.events, result }
}

/** The task's string-valued metadata, which reports group by and the statistics cluster by. */
function taskLabels(task: TaskSpec): Record<string, string> {
  const labels: Record<string, string> = {}
  for (const [key, value] of Object.entries(task.metadata)) if (typeof value === 'string') labels[key] = value
  return labels
}

async function prepareEnv(
  options: RunTrialOptions,
  warn: (msg: string) => void,
): Promise<{ ok: true; env: EnvHandle } | { ok: false; error: string; thrown: ThrownError }> {
  if (!options.prepare) return { ok: true, env: {} }
  try {
    return { ok: true, env: (await options.prepare(options.task)) ?? {} }
  } catch (e) {
    const error = errorMessage(e)
    warn(`prepare failed: ${error}`)
    return { ok: false, error, thrown: describeThrown(e) }
  }
}

// Once per runner: its info is what the runner is, and a check per trial would repeat the same answer.
const described = new WeakMap<AgentRunner, { info: RunnerInfo; warning: string | null }>()

/** The record must carry plain JSON; a runner whose info is broken must not cost the trial its record. */
function describeRunner(runner: AgentRunner, warn: (msg: string) => void): RunnerInfo {
  let known = described.get(runner)
  if (!known) {
    known = checkRunnerInfo(runner)
    described.set(runner, known)
  }
  if (known.warning !== null) warn(known.warning)
  return known.info
}

function checkRunnerInfo(runner: AgentRunner): { info: RunnerInfo; warning: string | null } {
  try {
    const parsed = RunnerInfo.safeParse(runner.runnerInfo())
    if (parsed.success) return { info: parsed.data, warning: null }
    return {
      info: UNKNOWN_RUNNER,
      warning: `runnerInfo() is invalid: ${parsed.error.issues[0]?.message ?? ''}`,
    }
  } catch (e) {
    return { info: UNKNOWN_RUNNER, warning: `runnerInfo() threw: ${errorMessage(e)}` }
  }
}

function notRun(error: string, thrown: ThrownError): AgentResult {
  return {
    thrown,
    success: false,
    finalAnswer: null,
    artifacts: [],
    error,
    totalCostUsd: 0,
    totalTokens: 0,
    turns: 0,
    wallSeconds: 0,
    terminatedBy: 'infra_failure',
  }
}

function terminalPayload(result: AgentResult) {
  return {
    terminatedBy: result.terminatedBy,
    success: result.success,
    error: result.error,
    finalAnswer: result.finalAnswer,
    totalTokens: result.totalTokens,
    totalCostUsd: result.totalCostUsd,
    turns: result.turns,
    wallSeconds: result.wallSeconds,
    ...(result.thrown ? { thrown: result.thrown } : {}),
  }
}
