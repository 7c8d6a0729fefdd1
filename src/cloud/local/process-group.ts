import { spawn } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { groupAlive } from './group-alive.ts'

export interface ProcessGroupOptions {
  cwd: string
  env: NodeJS.ProcessEnv
  /** stdout and stderr, interleaved as they arrive, appended here. */
  logFile: string
  /** Each complete line of output, as it arrives (a progress display reads them). */
  onLine?: (line: string) => void
}

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

/** A started process that leads its own process group, with its output going to a log file. */
export interface ProcessGroup {
  readonly pid: number
  /** Resolves once the leader has exited, the rest of its group is gone and the log is flushed. */
  readonly ended: Promise<Exit>
  /** How it ended, once `ended` has resolved; null before. */
  readonly exit: Exit | null
  /** Sends `signal` to the leader only (it may stop cleanly: `agentevalops run` writes its bundle on SIGTERM). */
  signalLeader(signal: NodeJS.Signals): void
  /** Sends `signal` to every process of the group (Vitest's workers too); a group already gone is no error. */
  signalGroup(signal: NodeJS.Signals): void
}

/**
 * How long the output pipes may stay open, and the group's processes may take to die, after the group was killed
 * (a process that left the group can hold the pipes).
 */
const AFTER_KILL_MS = 2_000

/**
 * Starts `command` as the leader of a new process group (`detached`), so that stopping it can reach everything it
 * started: a kill of the leader alone leaves Vitest's pool workers running as orphans. When the leader exits, what is
 * left of its group is killed.
 */
export async function startProcessGroup(
  command: readonly string[],
  options: ProcessGroupOptions,
): Promise<ProcessGroup> {
  const [program, ...args] = command
  if (program === undefined) throw new Error('startProcessGroup: empty command')
  await mkdir(dirname(options.logFile), { recursive: true })
  const log = createWriteStream(options.logFile, { flags: 'a' })
  await new Promise<void>((resolve, reject) => {
    log.once('open', () => resolve())
    log.once('error', reject)
  })
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const spawned = await new Promise<Error | null>((resolve) => {
    child.once('spawn', () => resolve(null))
    child.once('error', (e) => resolve(e))
  })
  if (spawned || child.pid === undefined) {
    log.end()
    throw spawned ?? new Error(`could not start ${program}`)
  }
  const pid = child.pid

  let partial = ''
  const onData = (chunk: Buffer): void => {
    log.write(chunk)
    if (!options.onLine) return
    const text = partial + chunk.toString('utf8')
    const lines = text.split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) options.onLine(line.replace(/\r$/, ''))
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)

  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-pid, signal)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e
    }
  }
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  let exit: Exit | null = null
  const ended = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      signalGroup('SIGKILL') // workers a crashed or killed leader left behind
      let timer: NodeJS.Timeout | undefined
      const pipes = new Promise<void>((r) => (timer = setTimeout(r, AFTER_KILL_MS)))
      void Promise.race([closed, pipes]).then(async () => {
        clearTimeout(timer)
        // A SIGKILLed process dies a moment after the signal: `ended` means nothing of the group is left.
        const deadline = Date.now() + AFTER_KILL_MS
        while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
        child.stdout.destroy()
        child.stderr.destroy()
        if (partial !== '' && options.onLine) options.onLine(partial)
        log.end(() => {
          exit = { code, signal }
          resolve(exit)
        })
      })
    })
  })

  return {
    pid,
    ended,
    get exit() {
      return exit
    },
    signalLeader(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    },
    signalGroup,
  }
}
