import { spawn, type ChildProcess } from 'node:child_process'
import { errorMessage, OutputTail } from '../core/index.ts'

/** How much of each output stream is kept: the end is where a failing test runner says what failed. */
export const MAX_TAIL_BYTES = 64 * 1024

/** After the process exits (or is killed), how long to wait for its pipes to close before giving up on them. */
const PIPE_GRACE_MS = 2_000

/** The only variables a check command inherits: enough to find binaries and behave, none of the parent's secrets. */
export const PASSED_ENV = ['PATH', 'HOME', 'LANG', 'TMPDIR'] as const

export function commandEnv(parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of PASSED_ENV) {
    const value = parent[name]
    if (value !== undefined) env[name] = value
  }
  return env
}

export interface RunCommandOptions {
  cwd: string
  timeoutMs: number
  /** Aborting kills the command's process group, like a timeout. */
  signal?: AbortSignal
  /** Defaults to commandEnv(). */
  env?: Record<string, string>
  /** How much of each stream's end is kept (default MAX_TAIL_BYTES): a test runner's report may need more. */
  maxTailBytes?: number
  /** Written to the command's stdin, which is then closed; default: stdin is /dev/null. */
  stdin?: string
}

export interface CommandResult {
  /** `exited` includes death by a signal we did not send (then `exitCode` is null and `signal` says which). */
  outcome: 'exited' | 'timeout' | 'aborted' | 'failed_to_start'
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** Also the process group id: the command runs detached, as the leader of its own group. */
  pid: number | undefined
  stdoutTail: string
  stderrTail: string
  /** Bytes written in all, of which the tails keep the last MAX_TAIL_BYTES. */
  stdoutBytes: number
  stderrBytes: number
  /** Why the command could not start, e.g. "ENOENT: spawn foo ENOENT". */
  error?: string
  durationMs: number
}

/**
 * Runs `argv` without a shell, in its own process group, with a minimal environment. On timeout or abort the whole
 * group is killed with SIGKILL, so a command that forked (a shell pipeline, a test runner's workers) leaves nothing
 * running; the group is also killed once the command exits, for the same reason. Never rejects.
 */
export function runCommand(argv: readonly string[], options: RunCommandOptions): Promise<CommandResult> {
  const started = performance.now()
  const stdout = new OutputTail(options.maxTailBytes ?? MAX_TAIL_BYTES)
  const stderr = new OutputTail(options.maxTailBytes ?? MAX_TAIL_BYTES)
  const [file, ...args] = argv
  const base = (pid: number | undefined) => ({
    pid,
    stdoutTail: stdout.text(),
    stderrTail: stderr.text(),
    stdoutBytes: stdout.total,
    stderrBytes: stderr.total,
    durationMs: Math.round(performance.now() - started),
  })
  const failed = (error: string): CommandResult => ({
    outcome: 'failed_to_start',
    exitCode: null,
    signal: null,
    error,
    ...base(undefined),
  })

  if (file === undefined || file === '') return Promise.resolve(failed('empty argv'))
  if (options.signal?.aborted)
    return Promise.resolve({ ...failed('aborted before it started'), outcome: 'aborted' })

  return new Promise((resolve) => {
    let child: ChildProcess
    try {
      child = spawn(file, args, {
        cwd: options.cwd,
        env: options.env ?? commandEnv(),
        shell: false,
        detached: true,
        stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      })
    } catch (e) {
      // Invalid arguments throw synchronously; a missing binary arrives later as an 'error' event.
      resolve(failed(errorMessage(e)))
      return
    }

    let settled = false
    let killedBy: 'timeout' | 'aborted' | undefined
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
    let grace: NodeJS.Timeout | undefined

    const killGroup = (): void => {
      if (child.pid === undefined) return
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // ESRCH: the group is already gone, which is what we wanted.
      }
    }
    const finish = (result: CommandResult): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(grace)
      options.signal?.removeEventListener('abort', onAbort)
      // A process outside the group may still hold the pipes; stop listening rather than wait for it.
      child.stdout?.destroy()
      child.stderr?.destroy()
      resolve(result)
    }
    const conclude = (): void => {
      const outcome = killedBy ?? 'exited'
      finish({ outcome, exitCode: exit?.code ?? null, signal: exit?.signal ?? null, ...base(child.pid) })
    }
    const armGrace = (): void => {
      grace ??= setTimeout(conclude, PIPE_GRACE_MS)
    }
    const stop = (reason: 'timeout' | 'aborted'): void => {
      // Once the command has exited on its own, its result stands; leftovers were already killed at exit.
      if (exit !== undefined) return
      killedBy ??= reason
      killGroup()
      // SIGKILL cannot be caught, but a process stuck in the kernel may still take a while to go: do not wait on it.
      armGrace()
    }
    const onAbort = (): void => stop('aborted')
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs)
    options.signal?.addEventListener('abort', onAbort, { once: true })

    if (options.stdin !== undefined && child.stdin) {
      // A command that exits without reading its input closes the pipe: EPIPE then is no error of ours.
      child.stdin.on('error', () => undefined)
      child.stdin.end(options.stdin)
    }
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk))
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk))
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (child.pid === undefined) finish(failed(e.code ? `${e.code}: ${e.message}` : e.message))
    })
    child.on('exit', (code, signal) => {
      exit = { code, signal }
      killGroup()
      armGrace()
    })
    child.on('close', conclude)
  })
}
