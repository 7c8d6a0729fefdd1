import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createInterface } from 'node:readline'
import { AgentEvalOpsError, OutputTail } from '../../core/index.ts'
import { commandEnv } from '../../engine/index.ts'
import { FORK_SERVER } from './fork-server.py.ts'

export interface ForkRequest {
  /** The check's own folder: the program is in it, and its stdout and stderr files go there. */
  dir: string
  /** The program's file name inside `dir`. */
  program: string
  timeoutSeconds: number
  memoryBytes: number
  /** Printed by the child after the program's last line only when it ran to its end. */
  token: string
  signal?: AbortSignal | undefined
}

export interface ForkReply {
  status: 'exited' | 'timeout' | 'cancelled'
  code: number | null
  signal: number | null
  ms: number
}

/** How long past a check's own timeout the server may take to answer before it is deemed broken. */
const ANSWER_GRACE_MS = 15_000

interface Pending {
  resolve(reply: ForkReply): void
  reject(error: Error): void
}

/**
 * One fork server per interpreter and process (see fork-server.py.ts), started on first use and again after it
 * died. Its stdin is the only thing keeping it alive: when this process exits, so does the server, and with it
 * whatever check was still running.
 */
export class ForkServer {
  private static readonly servers = new Map<string, ForkServer>()

  static for(python: string): ForkServer {
    let server = ForkServer.servers.get(python)
    if (!server) ForkServer.servers.set(python, (server = new ForkServer(python)))
    return server
  }

  private child: ChildProcessWithoutNullStreams | undefined
  private readonly pending = new Map<number, Pending>()
  private nextId = 1

  private constructor(private readonly python: string) {}

  run(request: ForkRequest): Promise<ForkReply> {
    const child = this.child ?? this.start()
    const id = this.nextId++
    return new Promise<ForkReply>((resolve, reject) => {
      const watchdog = setTimeout(
        () => this.fail(new Error(`the check runner did not answer within ${request.timeoutSeconds} s`)),
        request.timeoutSeconds * 1000 + ANSWER_GRACE_MS,
      )
      const onAbort = (): void => void child.stdin.write(`${JSON.stringify({ cancel: id })}\n`)
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
      child.stdin.write(
        `${JSON.stringify({
          id,
          dir: request.dir,
          program: request.program,
          timeout: request.timeoutSeconds,
          memory: request.memoryBytes,
          token: request.token,
        })}\n`,
      )
    })
  }

  private start(): ChildProcessWithoutNullStreams {
    // The server's environment is what every check inherits: a PATH and a locale, none of ours.
    const child = spawn(this.python, ['-I', '-S', '-c', FORK_SERVER], {
      env: { PATH: commandEnv().PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const stderr = new OutputTail(8 * 1024)
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
    child.stdin.on('error', () => undefined)
    createInterface({ input: child.stdout }).on('line', (line) => {
      let reply: ForkReply & { id: number }
      try {
        reply = JSON.parse(line) as ForkReply & { id: number }
      } catch {
        return
      }
      this.pending.get(reply.id)?.resolve(reply)
    })
    const died = (why: string): void => {
      if (this.child !== child) return
      this.child = undefined
      this.fail(new Error(`${why}${stderr.text().trim() ? `: ${stderr.text().trim().slice(-500)}` : ''}`))
    }
    child.on('error', (e) => died(`cannot start ${this.python} (${e.message})`))
    child.on('exit', (code, signal) => died(`the check runner exited (${signal ?? code})`))
    this.child = child
    this.unref()
    return child
  }

  /** Every check in flight fails as the grader's problem, and the server is started afresh on the next one. */
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
