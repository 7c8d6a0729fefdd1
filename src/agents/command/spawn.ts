import { spawn, type ChildProcess } from 'node:child_process'

/** After the process exits (or is killed), how long to wait for its pipes to close before giving up on them. */
export const PIPE_GRACE_MS = 2_000

export interface GroupProcessOptions {
  argv: readonly string[]
  cwd: string
  env: Record<string, string>
  /** Written to stdin, which is then closed; null: stdin is /dev/null. */
  stdin: string | null
  onStdout(chunk: Buffer): void
  onStderr(chunk: Buffer): void
}

export type ProcessEnd =
  | { kind: 'failed_to_start'; error: NodeJS.ErrnoException }
  | {
      kind: 'exited'
      code: number | null
      signal: NodeJS.Signals | null
      /** True when the process never confirmed its death after SIGKILL (stuck in the kernel): we stopped waiting. */
      unconfirmed?: boolean
    }

export interface GroupProcess {
  /** Also the process group id: the process runs detached, as the leader of its own group. */
  readonly pid: number | undefined
  /** Settles once the process has exited and its output has been read, or the pipes were given up. Never rejects. */
  readonly ended: Promise<ProcessEnd>
  /** SIGTERM to the whole group, then SIGKILL after `graceMs` unless the leader has exited by then. */
  terminate(graceMs: number): void
}

/**
 * Starts `argv` without a shell, as the leader of a new process group, with exactly the environment given. When
 * the leader exits, whatever it left running in its group is killed at once: nothing outlives a run.
 */
export function startGroupProcess(options: GroupProcessOptions): GroupProcess {
  const [file, ...args] = options.argv
  let child: ChildProcess
  try {
    child = spawn(file ?? '', args, {
      cwd: options.cwd,
      env: options.env,
      shell: false,
      detached: true,
      windowsHide: true,
      stdio: [options.stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
  } catch (e) {
    // Invalid arguments (a NUL byte, an argv too long for the OS) throw at once; a missing program arrives later.
    return {
      pid: undefined,
      ended: Promise.resolve({ kind: 'failed_to_start', error: asErrno(e) }),
      terminate() {},
    }
  }

  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
  let killTimer: NodeJS.Timeout | undefined
  let pipeTimer: NodeJS.Timeout | undefined
  let resolveEnded!: (end: ProcessEnd) => void
  let settled = false
  const ended = new Promise<ProcessEnd>((resolve) => (resolveEnded = resolve))

  const signalGroup = (signal: NodeJS.Signals): void => {
    // Once the leader is reaped its group id may be reused by someone else's group: send nothing after that.
    if (child.pid === undefined || exit !== undefined) return
    try {
      process.kill(-child.pid, signal)
    } catch {
      // ESRCH: the group is already gone, which is what we wanted.
    }
  }
  const finish = (end: ProcessEnd): void => {
    if (settled) return
    settled = true
    clearTimeout(killTimer)
    clearTimeout(pipeTimer)
    // A process outside the group (one that called setsid) may still hold the pipes: stop listening to it.
    child.stdout?.destroy()
    child.stderr?.destroy()
    child.stdin?.destroy()
    resolveEnded(end)
  }
  const concludeAfterPipes = (): void => {
    pipeTimer ??= setTimeout(
      () =>
        finish(
          exit
            ? { kind: 'exited', ...exit }
            : { kind: 'exited', code: null, signal: 'SIGKILL', unconfirmed: true },
        ),
      PIPE_GRACE_MS,
    )
  }
  const killNow = (): void => {
    signalGroup('SIGKILL')
    // SIGKILL cannot be caught, but a process stuck in the kernel may take a while to go: do not wait on it forever.
    concludeAfterPipes()
  }

  child.stdout?.on('data', (chunk: Buffer) => options.onStdout(chunk))
  child.stderr?.on('data', (chunk: Buffer) => options.onStderr(chunk))
  if (child.stdin) {
    // The command may exit or close stdin without reading it all (EPIPE): that is its choice, not an error.
    child.stdin.on('error', () => {})
    child.stdin.end(options.stdin ?? '')
  }
  child.on('error', (e: NodeJS.ErrnoException) => {
    if (child.pid === undefined) finish({ kind: 'failed_to_start', error: e })
  })
  child.on('exit', (code, signal) => {
    // At once: while a straggler lives, its group id cannot be handed to anyone else, so the signal is ours.
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // ESRCH: nothing was left running.
      }
    }
    exit = { code, signal }
    clearTimeout(killTimer)
    concludeAfterPipes()
  })
  child.on('close', () => {
    if (exit) finish({ kind: 'exited', ...exit })
  })

  return {
    pid: child.pid,
    ended,
    terminate(graceMs: number): void {
      if (exit !== undefined || settled || killTimer !== undefined) return
      if (graceMs <= 0) return killNow()
      signalGroup('SIGTERM')
      killTimer = setTimeout(killNow, graceMs)
    },
  }
}

function asErrno(e: unknown): NodeJS.ErrnoException {
  return e instanceof Error ? e : new Error(String(e))
}
