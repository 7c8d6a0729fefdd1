import { randomBytes } from 'node:crypto'
import { closeSync, fstatSync, openSync, readSync, rmdirSync, rmSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { constants } from 'node:os'
import { join } from 'node:path'
import { AgentEvalOpsError } from '../../core/index.ts'
import { runCommand, scratchRoot } from '../../engine/index.ts'
import { compileAhead } from './compile-server.ts'
import { forkCheck } from './fork-server.ts'

export type HumanEvalCheckStatus = 'passed' | 'failed' | 'timed_out'

export interface HumanEvalCheck {
  status: HumanEvalCheckStatus
  /** Upstream's wording: "passed", "failed: AssertionError: …", "timed out". */
  detail: string
  /** The end of what the program printed, for a failure's explanation. */
  stdoutTail: string
  stderrTail: string
  durationMs: number
}

export interface ExecuteOptions {
  /** The Python interpreter, resolved (see resolvePython). */
  python: string
  program: string
  timeoutSeconds: number
  memoryBytes: number
  signal?: AbortSignal | undefined
  /** Where the program's temporary folder goes; default the scratch root of this process. */
  scratch?: string | undefined
}

/**
 * Executes one check program in a process of its own, forked from a pristine Python (`-I -S`, see
 * fork-server.py.ts), in a temporary folder of its own that is removed afterwards, with none of our environment but
 * a PATH, killed with its whole process group at the timeout. Python failing to run at all is the grader's problem:
 * it throws INFRA_FAILURE.
 */
export async function executeCheck(options: ExecuteOptions): Promise<HumanEvalCheck> {
  const root = options.scratch ?? (await scratchRoot('humaneval'))
  const dir = await mkdtemp(join(root, 'check-'))
  try {
    await writeFile(join(dir, 'program.py'), options.program)
    const compiled = await compileAhead(options.python, join(dir, 'program.py'), join(dir, 'program.marshal'))
    const token = randomBytes(16).toString('hex')
    const reply = await forkCheck(options.python, {
      dir,
      program: 'program.py',
      compiled: compiled ? 'program.marshal' : null,
      timeoutSeconds: options.timeoutSeconds,
      memoryBytes: options.memoryBytes,
      token,
      signal: options.signal,
    })
    const stdoutTail = tailOf(join(dir, 'stdout'))
    const stderrTail = tailOf(join(dir, 'stderr'))
    const common = { stdoutTail, stderrTail, durationMs: reply.ms }
    if (reply.status === 'cancelled') {
      throw new AgentEvalOpsError('RUN_ABORTED', 'the check was stopped before it finished')
    }
    if (reply.status === 'timeout') return { status: 'timed_out', detail: 'timed out', ...common }
    if (reply.code === 0 && stdoutTail.trimEnd().endsWith(token)) {
      return { status: 'passed', detail: 'passed', ...common }
    }
    return {
      status: 'failed',
      detail: failureDetail(reply.code, signalName(reply.signal), stderrTail),
      ...common,
    }
  } finally {
    await removeCheckDir(dir)
  }
}

/** What a check's folder holds when its program made nothing of its own. */
const CHECK_FILES = ['program.py', 'program.marshal', 'stdout', 'stderr']

/**
 * Removes a check's folder. Checks are many and their folders small: unlinking the known files synchronously costs
 * less than a recursive removal through the thread pool; a folder the program added to is removed recursively.
 */
async function removeCheckDir(dir: string): Promise<void> {
  for (const name of CHECK_FILES) rmSync(join(dir, name), { force: true })
  try {
    rmdirSync(dir)
  } catch {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * The last TAIL_BYTES of a file the check wrote (none if it wrote nothing). Read synchronously: a few small reads
 * cost less than their round trips through the thread pool, and a check's files are on local disk.
 */
function tailOf(path: string): string {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return ''
  }
  try {
    const { size } = fstatSync(fd)
    const length = Math.min(size, TAIL_BYTES)
    const buffer = Buffer.alloc(length)
    readSync(fd, buffer, 0, length, size - length)
    // A cut can split a multi-byte character; its orphaned continuation bytes decode as U+FFFD.
    const text = buffer.toString('utf8')
    return size > length ? text.replace(/^\uFFFD+/, '') : text
  } finally {
    closeSync(fd)
  }
}

const TAIL_BYTES = 64 * 1024

function signalName(signal: number | null): NodeJS.Signals | null {
  if (signal === null) return null
  const entry = Object.entries(constants.signals).find(([, n]) => n === signal)
  return (entry?.[0] as NodeJS.Signals | undefined) ?? null
}

function failureDetail(code: number | null, signal: NodeJS.Signals | null, stderr: string): string {
  const said = stderr
    .split('\n')
    .reverse()
    .find((line) => line.startsWith('failed: '))
  if (said !== undefined) return said
  if (signal !== null) return `failed: killed by ${signal}`
  if (code === 0) return 'failed: the program exited before check() finished'
  const last = stderr.trim().split('\n').pop()
  return `failed: exit code ${code}${last ? ` (${last.slice(0, 300)})` : ''}`
}

const resolved = new Map<string, Promise<string>>()

/**
 * The interpreter's real path, asked of the interpreter itself once per process: a version manager's shim
 * (pyenv) costs a shell script per start, which on 164 checks is most of the time.
 */
export function resolvePython(command: string): Promise<string> {
  let found = resolved.get(command)
  if (!found) {
    found = (async () => {
      const run = await runCommand([command, '-I', '-S', '-c', 'import sys; print(sys.executable)'], {
        cwd: process.cwd(),
        timeoutMs: 30_000,
      })
      const path = run.stdoutTail.trim()
      if (run.outcome !== 'exited' || run.exitCode !== 0 || path === '') {
        throw new AgentEvalOpsError(
          'INFRA_FAILURE',
          `cannot run ${command}: ${run.error ?? (run.stderrTail.trim() || `exit ${run.exitCode}`)}`,
          { hint: "Install python3, or set the benchmark's python option to an interpreter's path." },
        )
      }
      return path
    })()
    resolved.set(command, found)
    found.catch(() => resolved.delete(command))
  }
  return found
}
