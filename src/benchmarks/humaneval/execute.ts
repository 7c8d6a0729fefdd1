import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AgentEvalOpsError } from '../../core/index.ts'
import { commandEnv, runCommand, scratchRoot } from '../../engine/index.ts'

/**
 * Runs the check program inside a guard: it caps memory, file size and core dumps, reads a one-time token from
 * stdin before the program can, and prints it only when the program ran to its end. So an answer that calls
 * exit(0) or os._exit(0) before check() has run fails, as upstream's in-process exec counts SystemExit a failure.
 * It is a guard against accidents, not a sandbox against an adversary (see docs/benchmarks/humaneval.md).
 */
const GUARD = `
import os, resource, sys
def _cap(kind, limit):
    try:
        resource.setrlimit(kind, (limit, limit))
    except (ValueError, OSError):
        pass
_cap(resource.RLIMIT_AS, int(sys.argv[2]))
_cap(resource.RLIMIT_FSIZE, 16 << 20)
_cap(resource.RLIMIT_CORE, 0)
_token = sys.stdin.readline().strip()
sys.stdin.close()
try:
    os.close(0)
except OSError:
    pass
_path = sys.argv[1]
sys.argv = [_path]
try:
    with open(_path, encoding="utf-8") as _f:
        _code = compile(_f.read(), _path, "exec")
    exec(_code, {"__name__": "__main__", "__builtins__": __builtins__})
except BaseException as _e:
    _msg = str(_e)[:500]
    sys.stderr.write("failed: " + type(_e).__name__ + (": " + _msg if _msg else "") + "\\n")
    sys.stderr.flush()
    os._exit(1)
sys.stdout.flush()
os.write(1, ("\\n" + _token + "\\n").encode())
os._exit(0)
`

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
 * Executes one check program in a fresh `python -I -S` process, in a temporary folder of its own that is removed
 * afterwards, with none of our environment but a PATH, and killed with its whole process group at the timeout.
 * Failing to start Python at all is the grader's problem: it throws INFRA_FAILURE.
 */
export async function executeCheck(options: ExecuteOptions): Promise<HumanEvalCheck> {
  const root = options.scratch ?? (await scratchRoot('humaneval'))
  const dir = await mkdtemp(join(root, 'check-'))
  try {
    const file = join(dir, 'program.py')
    await writeFile(file, options.program)
    const token = randomBytes(16).toString('hex')
    const run = await runCommand(
      [options.python, '-I', '-S', '-c', GUARD, file, String(options.memoryBytes)],
      {
        cwd: dir,
        timeoutMs: options.timeoutSeconds * 1000,
        signal: options.signal,
        env: { PATH: commandEnv().PATH ?? '/usr/bin:/bin', HOME: dir, TMPDIR: dir, LANG: 'C.UTF-8' },
        stdin: `${token}\n`,
      },
    )
    const common = { stdoutTail: run.stdoutTail, stderrTail: run.stderrTail, durationMs: run.durationMs }
    if (run.outcome === 'failed_to_start') {
      throw new AgentEvalOpsError('INFRA_FAILURE', `cannot start ${options.python}: ${run.error ?? ''}`, {
        hint: "Install python3, or set the benchmark's python option to an interpreter.",
      })
    }
    if (run.outcome === 'aborted') {
      throw new AgentEvalOpsError('RUN_ABORTED', 'the check was stopped before it finished')
    }
    if (run.outcome === 'timeout') return { status: 'timed_out', detail: 'timed out', ...common }
    if (run.exitCode === 0 && run.stdoutTail.trimEnd().endsWith(token)) {
      return { status: 'passed', detail: 'passed', ...common }
    }
    return { status: 'failed', detail: failureDetail(run.exitCode, run.signal, run.stderrTail), ...common }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
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
