import {
  AgentEvalOpsError,
  ArtifactRef,
  TracePayloads,
  errorMessage,
  passThroughGate,
  type EmitUsage,
  type ModelCallGate,
  type ResourceLimits,
  type RunContext,
  type TerminatedBy,
  type TraceEvent,
  type TraceEventKind,
  type TracePayload,
} from '../core/index.ts'
import type { z } from 'zod'
import { fastPayload } from './payload-shape.ts'
import { UsageMeter, exceededLimit, limitMessage, type LimitTermination } from './limits.ts'
import type { TraceRecorder } from './trace-recorder.ts'

/** Ways a run is stopped from outside the runner's own code. */
export type Stop = LimitTermination | Extract<TerminatedBy, 'interrupted'>

/**
 * The engine's side of a RunContext: measures usage from emitted events, enforces limits as they are crossed,
 * and stops the run (aborting `signal`) on a limit or an external cancel.
 */
export class RunControl {
  readonly meter = new UsageMeter()
  readonly context: RunContext
  private readonly controller = new AbortController()
  private stopped: { by: Stop; message: string } | null = null
  private closed = false

  constructor(
    private readonly recorder: TraceRecorder,
    private readonly limits: ResourceLimits,
    private readonly warn: (msg: string) => void,
    modelCalls: ModelCallGate = passThroughGate,
  ) {
    const started = performance.now()
    this.context = {
      limits,
      usage: () => ({
        tokens: this.meter.tokens,
        costUsd: this.meter.costUsd,
        turns: this.meter.turns,
        wallSeconds: (performance.now() - started) / 1000,
      }),
      signal: this.controller.signal,
      emit: (kind, payload, usage) => this.emit(kind, payload, usage),
      warn: (message) => this.warn(String(message)),
      modelCalls,
      addArtifact: (artifact) => this.addArtifact(artifact),
    }
  }

  /** Artifacts the runner registered as it went, valid ones only (a bad one is a warning, not a crash). */
  readonly artifacts: ArtifactRef[] = []

  private addArtifact(artifact: unknown): void {
    const parsed = ArtifactRef.safeParse(artifact)
    if (!parsed.success) {
      this.warn(`ignored an invalid artifact: ${JSON.stringify(artifact) ?? String(artifact)}`)
      return
    }
    if (!this.artifacts.some((a) => a.name === parsed.data.name && a.path === parsed.data.path))
      this.artifacts.push(parsed.data)
  }

  get signal(): AbortSignal {
    return this.controller.signal
  }

  /** Why the run was stopped, if it was. Frozen once the run phase is closed. */
  get stop(): { by: Stop; message: string } | null {
    return this.stopped
  }

  stopRun(by: Stop, message: string): void {
    if (this.stopped || this.closed) return
    this.stopped = { by, message }
    this.controller.abort(
      new AgentEvalOpsError(by === 'interrupted' ? 'RUN_ABORTED' : 'LIMIT_REACHED', message),
    )
  }

  /** The run phase is over: nothing the runner still does may reach the trace after its terminal event. */
  close(): void {
    this.closed = true
  }

  private emit<K extends TraceEventKind>(
    kind: K,
    payload: TracePayload<K>,
    usage: EmitUsage | undefined,
  ): number {
    // A stopped run stays stopped: a runner that ignored the first error gets it again, and nothing is recorded.
    if (this.controller.signal.aborted) throw this.controller.signal.reason
    if (this.closed) {
      this.warn(`dropped a ${kind} event emitted after the runner had returned`)
      return -1
    }
    const plain = plainPayload(kind, payload)
    const tokens = usage?.tokens ?? reportedTokens(kind, plain)
    const costUsd = usage?.costUsd ?? 0
    if (!Number.isInteger(tokens) || tokens < 0 || !Number.isFinite(costUsd) || costUsd < 0) {
      throw new AgentEvalOpsError(
        'TRACE_INVALID',
        `${kind}: usage must be whole tokens ≥ 0 and a finite cost ≥ 0, got ${JSON.stringify(usage)}`,
      )
    }
    const event = this.recorder.record(kind, plain, tokens, costUsd)
    this.meter.add(kind, tokens, costUsd, isFailedAttempt(event))
    const limit = exceededLimit(this.limits, this.meter)
    if (limit) {
      // The crossing event is already recorded, so the trace shows what broke the limit.
      this.stopRun(limit, limitMessage(limit, this.limits, this.meter))
      throw this.controller.signal.reason
    }
    return event.step
  }
}

export function isFailedAttempt(event: TraceEvent): boolean {
  return event.kind === 'agent.model_call' && event.payload.status === 'error'
}

/**
 * A JSON copy, validated against the kind's schema: the runner may mutate its object later, and whatever is not
 * plain JSON would differ between the events in memory and the ones on disk.
 */
function plainPayload<K extends TraceEventKind>(kind: K, payload: unknown): TracePayload<K> {
  const schema = (TracePayloads as Partial<Record<string, z.ZodType>>)[kind]
  if (!schema || kind === 'agent.terminal') {
    throw new AgentEvalOpsError(
      'TRACE_INVALID',
      `a runner cannot emit events of kind ${JSON.stringify(kind)}`,
    )
  }
  let copy: unknown
  try {
    copy = JSON.parse(JSON.stringify(payload)) as unknown
  } catch (e) {
    throw new AgentEvalOpsError('TRACE_INVALID', `${kind}: payload is not plain JSON (${errorMessage(e)})`)
  }
  const fast = fastPayload(kind, copy)
  if (fast !== undefined) return fast
  const parsed = schema.safeParse(copy)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new AgentEvalOpsError(
      'TRACE_INVALID',
      `${kind}: invalid payload: ${issue ? `${issue.path.join('.') || '(payload)'}: ${issue.message}` : 'invalid'}`,
    )
  }
  return parsed.data as TracePayload<K>
}

/** Model calls that report their token counts need no separate usage argument. */
function reportedTokens(kind: TraceEventKind, payload: unknown): number {
  if (kind !== 'agent.model_call') return 0
  const p = payload as TracePayload<'agent.model_call'>
  return (p.inputTokens ?? 0) + (p.outputTokens ?? 0)
}
