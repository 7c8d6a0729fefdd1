import {
  AgentEvalOpsError,
  type CloudBackend,
  type JobHandle,
  type JobSpec,
  type JobStatus,
  type SecretRef,
} from '../../core/index.ts'
import { startProcessGroup, type ProcessGroup } from './process-group.ts'
import { secretFromEnv } from './secrets.ts'
import { exportBundleSpans } from './telemetry.ts'

export interface LocalBackendOptions {
  /** The environment jobs start from (their spec's env is added on top) and secrets are read from. Default process.env. */
  env?: NodeJS.ProcessEnv
  /** How long a cancelled job may take to stop by itself (SIGTERM) before its whole group is killed. Default 10 s. */
  cancelGraceMs?: number
  /** Each line a job prints, as it arrives. */
  onLine?: (handle: JobHandle, line: string) => void
}

interface LocalJob {
  handle: JobHandle
  spec: JobSpec
  group: ProcessGroup
  startedAt: string
  finishedAt: string | null
  cancelled: boolean
  cancelling: Promise<void> | null
}

/** The `local` CloudBackend: each job is a process group on this machine. */
export class LocalBackend implements CloudBackend {
  readonly id = 'local'
  private readonly jobs = new Map<string, LocalJob>()
  private readonly env: NodeJS.ProcessEnv
  private readonly graceMs: number

  constructor(private readonly options: LocalBackendOptions = {}) {
    this.env = options.env ?? process.env
    this.graceMs = options.cancelGraceMs ?? 10_000
  }

  async submit(spec: JobSpec): Promise<JobHandle> {
    if (!/^[A-Za-z0-9._-]+$/.test(spec.name))
      throw new AgentEvalOpsError(
        'USAGE',
        `job name ${JSON.stringify(spec.name)}: use letters, digits, . _ -`,
      )
    // The handle names the pid, which exists only once the process does: lines before that wait for it.
    const named: { handle?: JobHandle; early: string[] } = { early: [] }
    const onLine = this.options.onLine
    const group = await startProcessGroup(spec.command, {
      cwd: spec.cwd,
      env: { ...this.env, ...spec.env },
      logFile: spec.logFile,
      ...(onLine
        ? {
            onLine: (line: string) =>
              named.handle ? onLine(named.handle, line) : void named.early.push(line),
          }
        : {}),
    })
    const handle: JobHandle = {
      backendId: this.id,
      jobId: `${spec.name}@${group.pid}`,
      name: spec.name,
      logFile: spec.logFile,
    }
    named.handle = handle
    for (const line of named.early.splice(0)) onLine?.(handle, line)
    const job: LocalJob = {
      handle,
      spec,
      group,
      startedAt: new Date().toISOString(),
      finishedAt: null,
      cancelled: false,
      cancelling: null,
    }
    void group.ended.then(() => (job.finishedAt = new Date().toISOString()))
    this.jobs.set(handle.jobId, job)
    return handle
  }

  async status(handle: JobHandle): Promise<JobStatus> {
    return statusOf(this.job(handle))
  }

  /** Resolves with the job's final status once it has ended (the local backend can wait; a cloud one polls). */
  async wait(handle: JobHandle): Promise<JobStatus> {
    const job = this.job(handle)
    await job.group.ended
    return statusOf(job)
  }

  /**
   * SIGTERM to the job's leader first (`agentevalops run` then writes the bundle of its finished trials), SIGKILL to
   * its whole group after the grace period; the group is killed in any case once the leader is gone.
   */
  cancel(handle: JobHandle): Promise<void> {
    const job = this.job(handle)
    if (job.cancelling) return job.cancelling
    if (job.group.exit) return Promise.resolve()
    job.cancelled = true
    job.group.signalLeader('SIGTERM')
    const timer = setTimeout(() => job.group.signalGroup('SIGKILL'), this.graceMs)
    job.cancelling = job.group.ended.then(() => clearTimeout(timer))
    return job.cancelling
  }

  /** Kills the job's whole group at once (a second Ctrl+C): no grace period. */
  kill(handle: JobHandle): void {
    const job = this.job(handle)
    if (job.group.exit) return
    job.cancelled = true
    job.group.signalGroup('SIGKILL')
  }

  async fetchSecret(ref: SecretRef): Promise<string> {
    return secretFromEnv(ref, this.env)
  }

  async exportTelemetry(handle: JobHandle, destination: string): Promise<string[]> {
    const job = this.job(handle)
    if (job.spec.outputDir === undefined) return []
    return exportBundleSpans(job.spec.outputDir, destination, job.spec.name)
  }

  private job(handle: JobHandle): LocalJob {
    const job = handle.backendId === this.id ? this.jobs.get(handle.jobId) : undefined
    if (!job)
      throw new AgentEvalOpsError(
        'JOB_UNKNOWN',
        `job ${handle.jobId} (backend ${handle.backendId}) was not submitted to this local backend.`,
      )
    return job
  }
}

function statusOf(job: LocalJob): JobStatus {
  const exit = job.group.exit
  const state =
    exit === null ? 'running' : job.cancelled ? 'cancelled' : exit.code === 0 ? 'succeeded' : 'failed'
  return {
    state,
    exitCode: exit?.code ?? null,
    signal: exit?.signal ?? null,
    startedAt: job.startedAt,
    finishedAt: exit === null ? null : (job.finishedAt ?? new Date().toISOString()),
    logFile: job.handle.logFile,
  }
}
