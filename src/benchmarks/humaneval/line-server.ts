import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createInterface } from 'node:readline'
import { AgentEvalOpsError, OutputTail } from '../../core/index.ts'
import { commandEnv } from '../../engine/index.ts'

export interface LineRequest {
  /** The request's fields; `id` is added. */
  payload: Record<string, unknown>
  /** How long to wait for the answer before the server is deemed broken. */
  answerWithinMs: number
  signal?: AbortSignal | undefined
  /** Sent when `signal` aborts: how the server is told to stop the request. */
  cancel?: Record<string, unknown> | undefined
}

interface Pending {
  resolve(reply: Record<string, unknown>): void
  reject(error: Error): void
}

/**
 * A Python script run as a server with `-I -S`, one JSON object per line each way, answers matched to requests by
 * `id`; started on first use and again after it died. Its stdin is the only thing keeping it alive: when this
 * process exits, so does the server. A server that dies or stops answering fails every request in flight as an
 * INFRA_FAILURE: it is the grader's problem, never the answer's.
 */
export class PythonLineServer {
  private child: ChildProcessWithoutNullStreams | undefined
  private readonly pending = new Map<number, Pending>()
  private nextId = 1

  constructor(
    private readonly python: string,
    private readonly script: string,
    /** What the server is, in error messages ("the check runner"). */
    private readonly role: string,
  ) {}

  request(request: LineRequest): Promise<Record<string, unknown>> {
    const child = this.child ?? this.start()
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const watchdog = setTimeout(
        () => this.fail(new Error(`${this.role} did not answer within ${request.answerWithinMs / 1000} s`)),
        request.answerWithinMs,
      )
      const onAbort = (): void => {
        if (request.cancel) child.stdin.write(`${JSON.stringify({ ...request.cancel, cancel: id })}\n`)
      }
      const settle = (): void => {
        clearTimeout(watchdog)
        request.signal?.removeEventListener('abort', onAbort)
        this.pending.delete(id)
        if (this.pending.size === 0) this.unref()
      }
      this.pending.set(id, {
        resolve: (reply) => (settle(), resolve(reply)),
        reject: (error) => (settle(), reject(error)),
      })
      this.ref()
      request.signal?.addEventListener('abort', onAbort, { once: true })
      child.stdin.write(`${JSON.stringify({ id, ...request.payload })}\n`)
    })
  }

  private start(): ChildProcessWithoutNullStreams {
    // The server's environment is what everything it runs inherits: a PATH and a locale, none of ours.
    const child = spawn(this.python, ['-I', '-S', '-c', this.script], {
      env: { PATH: commandEnv().PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const stderr = new OutputTail(8 * 1024)
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
    child.stdin.on('error', () => undefined)
    createInterface({ input: child.stdout }).on('line', (line) => {
      let reply: Record<string, unknown>
      try {
        reply = JSON.parse(line) as Record<string, unknown>
      } catch {
        return
      }
      if (typeof reply.id === 'number') this.pending.get(reply.id)?.resolve(reply)
    })
    const died = (why: string): void => {
      if (this.child !== child) return
      this.child = undefined
      this.fail(new Error(`${why}${stderr.text().trim() ? `: ${stderr.text().trim().slice(-500)}` : ''}`))
    }
    child.on('error', (e) => died(`cannot start ${this.python} (${e.message})`))
    child.on('exit', (code, signal) => died(`${this.role} exited (${signal ?? code})`))
    this.child = child
    this.unref()
    return child
  }

  /** Every request in flight fails as the grader's problem, and the server is started afresh on the next one. */
  private fail(cause: Error): void {
    const child = this.child
    this.child = undefined
    child?.kill('SIGKILL')
    const error = new AgentEvalOpsError('INFRA_FAILURE', cause.message, {
      hint: "Check that the benchmark's python option names a working Python 3 interpreter.",
      cause,
    })
    for (const pending of [...this.pending.values()]) pending.reject(error)
  }

  // Idle, the server must not keep this process alive; busy, its answers must.
  private ref(): void {
    this.child?.ref()
    for (const s of [this.child?.stdin, this.child?.stdout, this.child?.stderr])
      (s as { ref?(): void } | undefined)?.ref?.()
  }

  private unref(): void {
    this.child?.unref()
    for (const s of [this.child?.stdin, this.child?.stdout, this.child?.stderr])
      (s as { unref?(): void } | undefined)?.unref?.()
  }
}
