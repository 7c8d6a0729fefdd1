import {
  ArtifactRef,
  describeThrown,
  errorMessage,
  isAgentEvalOpsError,
  type AgentOutput,
  type AgentResult,
  type AgentRunner,
  type EnvHandle,
  type ModelCallGate,
  type ResourceLimits,
  type TaskSpec,
  type TerminatedBy,
  type ThrownError,
} from '../core/index.ts'
import { limitMessage, startWallClock } from './limits.ts'
import { RunControl } from './run-control.ts'
import type { TraceRecorder } from './trace-recorder.ts'

export interface RunAgentOptions {
  runner: AgentRunner
  task: TaskSpec
  env: EnvHandle
  limits: ResourceLimits
  recorder: TraceRecorder
  signal: AbortSignal | undefined
  warn: (msg: string) => void
  modelCalls?: ModelCallGate | undefined
}

type Settlement =
  { kind: 'returned'; output: unknown } | { kind: 'threw'; error: unknown } | { kind: 'stopped' }

const ARTIFACTS = ArtifactRef.array()

/**
 * Runs the agent once and builds its AgentResult from the usage the engine measured. Stops at the first of:
 * the runner settling, a limit, the wall clock, or an external cancel. A runner that ignores its signal is not
 * waited for; it keeps running detached, and whatever it emits afterwards is refused.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const { limits, signal } = options
  const control = new RunControl(options.recorder, limits, options.warn, options.modelCalls)
  const interrupt = (): void => control.stopRun('interrupted', `interrupted: ${reasonText(signal?.reason)}`)
  if (signal?.aborted) interrupt()
  else signal?.addEventListener('abort', interrupt, { once: true })
  const stopClock = startWallClock(limits, () =>
    control.stopRun('limit_time', limitMessage('limit_time', limits, control.meter)),
  )
  const started = performance.now()
  try {
    const settled = await settle(control, () =>
      options.runner.run(options.task, options.env, control.context),
    )
    const wallSeconds = Math.round(performance.now() - started) / 1000
    return buildResult(settled, control, wallSeconds, options.recorder)
  } finally {
    stopClock()
    signal?.removeEventListener('abort', interrupt)
  }
}

/** Whichever comes first: the runner's promise or a stop. The run phase closes at that moment. */
function settle(control: RunControl, start: () => Promise<AgentOutput>): Promise<Settlement> {
  return new Promise<Settlement>((resolve) => {
    const done = (s: Settlement): void => {
      control.signal.removeEventListener('abort', onStop)
      control.close()
      resolve(s)
    }
    const onStop = (): void => done({ kind: 'stopped' })
    if (control.signal.aborted) return onStop()
    control.signal.addEventListener('abort', onStop, { once: true })
    // Async, so a runner that throws before its first await is settled like one that rejects.
    const running = (async () => start())()
    void running.then(
      (output) => done({ kind: 'returned', output }),
      (error: unknown) => done({ kind: 'threw', error }),
    )
  })
}

function buildResult(
  settled: Settlement,
  control: RunControl,
  wallSeconds: number,
  recorder: TraceRecorder,
): AgentResult {
  const { meter } = control
  const output = settled.kind === 'returned' ? normalizeOutput(settled.output) : null
  let terminatedBy: TerminatedBy
  let error: string | null = null
  let thrown: ThrownError | undefined

  const stop = control.stop
  if (stop) {
    terminatedBy = stop.by
    error = stop.message
  } else if (settled.kind === 'threw') {
    terminatedBy = isHarnessError(settled.error) ? 'infra_failure' : 'agent_error'
    error = errorMessage(settled.error)
    // The type and the user's frames, so the crash can be debugged from the bundle (redacted with the result).
    thrown = describeThrown(settled.error)
  } else if (output?.error !== undefined) {
    terminatedBy = 'agent_error'
    error = output.error
  } else {
    terminatedBy = 'completed'
  }

  // A runner that never returned may still have given its answer along the way.
  const finalAnswer = output ? output.finalAnswer : lastAnswer(recorder)
  const success = terminatedBy === 'completed' && (output?.success ?? finalAnswer !== null)
  // Registered artifacts first (they exist even for a runner that never returned), then the returned ones.
  const artifacts = [...control.artifacts]
  for (const a of output?.artifacts ?? []) {
    if (!artifacts.some((b) => b.name === a.name && b.path === a.path)) artifacts.push(a)
  }
  // In the schema's order: the record that carries it is written as built, never re-parsed.
  return {
    success,
    finalAnswer,
    artifacts,
    error,
    totalCostUsd: meter.costUsd,
    totalTokens: meter.tokens,
    turns: meter.turns,
    wallSeconds,
    terminatedBy,
    ...(thrown ? { thrown } : {}),
  }
}

interface NormalizedOutput {
  finalAnswer: string | null
  success: boolean | undefined
  artifacts: AgentResult['artifacts']
  error: string | undefined
}

/** Runners may be plain JavaScript: take what fits the contract and call the rest an agent error. */
function normalizeOutput(raw: unknown): NormalizedOutput {
  const out = (raw && typeof raw === 'object' ? raw : {}) as Partial<Record<keyof AgentOutput, unknown>>
  // Most runners return none: nothing to check then.
  const artifacts =
    out.artifacts === undefined ? { success: true as const, data: [] } : ARTIFACTS.safeParse(out.artifacts)
  const problems: string[] = []
  if (!(raw && typeof raw === 'object')) problems.push('the runner returned no output object')
  if (!artifacts.success) problems.push('the runner returned invalid artifacts')
  const error =
    out.error === undefined || out.error === null
      ? undefined
      : typeof out.error === 'string'
        ? out.error
        : errorMessage(out.error)
  return {
    finalAnswer: typeof out.finalAnswer === 'string' ? out.finalAnswer : null,
    success: typeof out.success === 'boolean' ? out.success : undefined,
    artifacts: artifacts.success ? artifacts.data : [],
    error: error ?? (problems.length > 0 ? problems.join('; ') : undefined),
  }
}

function lastAnswer(recorder: TraceRecorder): string | null {
  for (let i = recorder.events.length - 1; i >= 0; i--) {
    const event = recorder.events[i]
    if (event?.kind === 'agent.final_answer') return event.payload.answer
  }
  return null
}

/**
 * Errors that are the harness's, not the agent's: a broken setup, a replay with no recording to answer from, or a
 * model call that recordings were asked for and that cannot be recorded.
 */
function isHarnessError(e: unknown): boolean {
  return (
    isAgentEvalOpsError(e, 'INFRA_FAILURE') ||
    isAgentEvalOpsError(e, 'RECORDING_MISSING') ||
    isAgentEvalOpsError(e, 'RECORDING_UNKEYED')
  )
}

function reasonText(reason: unknown): string {
  if (reason === undefined) return 'the run was cancelled'
  return errorMessage(reason)
}
