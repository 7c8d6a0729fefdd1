import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import {
  AgentEvalOpsError,
  errorMessage,
  OutputTail,
  redactorFromEnv,
  type AgentOutput,
  type AgentRunner,
  type ArtifactRef,
  type EnvHandle,
  type JsonValue,
  type RunContext,
  type RunnerInfo,
  type TaskSpec,
} from '../../core/index.ts'
import { genericFormat } from './formats/generic.ts'
import { streamJsonFormat } from './formats/stream-json.ts'
import type { FormatFactory } from './formats/types.ts'
import { RunNotes } from './notes.ts'
import {
  childEnv,
  resolveOptions,
  substituteArgv,
  type CommandFormat,
  type CommandRunnerOptions,
  type ResolvedOptions,
} from './options.ts'
import { CappedFile, LineSplitter, MAX_LINE_BYTES } from './output.ts'
import { startGroupProcess, type GroupProcess, type ProcessEnd } from './spawn.ts'

const FORMATS: Record<CommandFormat, FormatFactory> = {
  generic: genericFormat,
  'stream-json': streamJsonFormat,
}

/** How much of stderr's end an error message quotes: where a crashing program says why. */
const STDERR_TAIL_BYTES = 2_000

/**
 * Runs an agent CLI once per trial and turns its JSON-lines stdout into the trace, as it streams. The command runs
 * without a shell, in its own process group, with a scrubbed environment; a limit or a cancel kills the whole
 * group (SIGTERM, then SIGKILL after `killGraceMs`), and so does the command's own exit, for what it left behind.
 */
export function commandRunner(options: CommandRunnerOptions): AgentRunner {
  const resolved = resolveOptions(options)
  const info: RunnerInfo = {
    name: resolved.name ?? `command:${basename(resolved.argv[0]!)}`,
    kind: 'command',
    config: {
      argv: [...resolved.argv],
      format: resolved.format,
      passEnv: [...resolved.passEnv],
      // Names only: values may be credentials.
      envNames: Object.keys(resolved.env).sort(),
      cwd: resolved.cwd === undefined ? 'workspace' : 'fixed',
      stdin: resolved.stdin,
    },
  }
  return {
    runnerInfo: () => structuredClone(info),
    run: (task, env, ctx) => runCommandAgent(resolved, task, env, ctx),
  }
}

async function runCommandAgent(
  options: ResolvedOptions,
  task: TaskSpec,
  env: EnvHandle,
  ctx: RunContext,
): Promise<AgentOutput> {
  ctx.signal.throwIfAborted()
  const place = await workingDirectory(options.cwd, env.workdir)
  try {
    const outDir = await artifactDirectory(options.artifactsDir, task.id)
    ctx.signal.throwIfAborted()
    return await supervise(options, task, place.dir, outDir, ctx)
  } finally {
    // A failed cleanup must not hide the run's own result: it is only worth a warning.
    if (place.temporary)
      await rm(place.dir, { recursive: true, force: true }).catch((e: unknown) =>
        ctx.warn(`commandRunner could not remove its temp working directory: ${errorMessage(e)}`),
      )
  }
}

async function supervise(
  options: ResolvedOptions,
  task: TaskSpec,
  cwd: string,
  outDir: string,
  ctx: RunContext,
): Promise<AgentOutput> {
  const notes = new RunNotes((message) => ctx.warn(message))
  const format = FORMATS[options.format]({ ctx, notes })
  const artifacts: ArtifactRef[] = [
    { name: 'stdout', path: join(outDir, 'stdout.log') },
    { name: 'stderr', path: join(outDir, 'stderr.log') },
  ]
  // The child's own environment may carry secrets ours does not: both are redacted from its output files.
  const redactor = redactorFromEnv({ ...process.env, ...childEnv(options) })
  const stdoutFile = new CappedFile(
    artifacts[0]!.path,
    options.maxOutputBytes,
    (m) => notes.once('file:stdout', m),
    redactor,
  )
  const stderrFile = new CappedFile(
    artifacts[1]!.path,
    options.maxOutputBytes,
    (m) => notes.once('file:stderr', m),
    redactor,
  )
  const stderrTail = new OutputTail(STDERR_TAIL_BYTES)
  // Registered now, so a trial stopped by a limit (whose runner never returns) still has its output files.
  for (const artifact of artifacts) ctx.addArtifact(artifact)

  let proc: GroupProcess | undefined
  let stopped = false
  /** What the format threw (a limit crossed by the stream's usage): the run's result once the process is gone. */
  let failure: { error: unknown } | undefined
  const stop = (): void => {
    if (stopped) return
    stopped = true
    proc?.terminate(options.killGraceMs)
  }
  const onAbort = (): void => {
    // The engine does not wait for a stopped runner: warnings given now still reach the trial's record.
    notes.flush()
    stop()
  }

  const handleLine = (line: string): void => {
    // Whatever the stream says after a stop is not the trial's: the trace is already closed to it.
    if (stopped || line.trim() === '') return
    let value: JsonValue
    try {
      value = JSON.parse(line) as JsonValue
    } catch {
      notes.count(
        'not-json',
        (n) => `${n} stdout line(s) were not JSON and were skipped (they are kept in the stdout artifact)`,
      )
      return
    }
    try {
      format.line(value)
    } catch (e) {
      failure ??= { error: e }
      stop()
    }
  }
  const splitter = new LineSplitter(handleLine, () =>
    notes.count(
      'too-long',
      (n) =>
        `${n} stdout line(s) longer than ${MAX_LINE_BYTES} bytes were skipped (they are kept in the stdout artifact)`,
    ),
  )

  const argv = substituteArgv(options.argv, { prompt: task.prompt, task_id: task.id, workdir: cwd })
  const childEnvironment = childEnv(options)
  ctx.signal.addEventListener('abort', onAbort, { once: true })
  let end: ProcessEnd
  try {
    proc = startGroupProcess({
      argv,
      cwd,
      env: childEnvironment,
      stdin: options.stdin === 'prompt' ? task.prompt : null,
      onStdout: (chunk) => {
        stdoutFile.write(chunk)
        splitter.push(chunk)
      },
      onStderr: (chunk) => {
        stderrFile.write(chunk)
        stderrTail.push(chunk)
      },
    })
    // A listener added to an already aborted signal never fires: should that ever happen, stop here.
    if (ctx.signal.aborted) onAbort()
    end = await proc.ended
    if (!stopped && end.kind === 'exited') {
      splitter.end()
      if (!stopped) {
        try {
          format.end()
        } catch (e) {
          failure ??= { error: e }
        }
      }
    }
  } finally {
    ctx.signal.removeEventListener('abort', onAbort)
    await Promise.all([stdoutFile.close(), stderrFile.close()])
    notes.flush()
  }

  if (end.kind === 'failed_to_start') throw startFailure(argv[0]!, end.error, childEnvironment)
  if (failure) throw failure.error
  ctx.signal.throwIfAborted()

  const reported = format.result()
  const problems = [reported.error, exitProblem(end, stderrTail)].filter((p): p is string => p !== undefined)
  return {
    finalAnswer: reported.finalAnswer,
    ...(reported.success === undefined ? {} : { success: reported.success }),
    artifacts,
    ...(problems.length > 0 ? { error: problems.join('; ') } : {}),
  }
}

function exitProblem(end: Extract<ProcessEnd, { kind: 'exited' }>, stderr: OutputTail): string | undefined {
  if (end.code === 0) return undefined
  const how = end.code !== null ? `exited with code ${end.code}` : `was killed by ${end.signal ?? 'a signal'}`
  const tail = `${stderr.truncated ? '…' : ''}${stderr.text()}`.trim()
  return tail === '' ? `${how} (nothing on stderr)` : `${how}: ${tail}`
}

/** The harness could not run the command at all: not the agent's failure. */
function startFailure(
  program: string,
  error: NodeJS.ErrnoException,
  env: Record<string, string>,
): AgentEvalOpsError {
  const hint =
    error.code === 'ENOENT'
      ? env.PATH === undefined && !program.includes('/')
        ? 'PATH is not passed to the command, so only the system default path was searched: add PATH to passEnv (see DEFAULT_PASS_ENV), or give argv[0] as a path.'
        : 'Is it installed, and on the PATH the command gets?'
      : error.code === 'EACCES'
        ? 'Is the file executable?'
        : error.code === 'E2BIG'
          ? 'The arguments are too long for the OS: pass the prompt on stdin instead of {prompt}.'
          : undefined
  return new AgentEvalOpsError(
    'INFRA_FAILURE',
    `commandRunner could not start ${JSON.stringify(program)}: ${error.code ?? errorMessage(error)}`,
    { ...(hint ? { hint } : {}), cause: error },
  )
}

async function workingDirectory(
  configured: string | undefined,
  workdir: string | undefined,
): Promise<{ dir: string; temporary: boolean }> {
  const given = configured ?? workdir
  if (given === undefined) {
    // No workspace: a private empty folder, so the agent does not run wherever the harness happens to be.
    return {
      dir: await infra(() => mkdtemp(join(tmpdir(), 'aeo-command-cwd-')), 'a temp working directory'),
      temporary: true,
    }
  }
  const dir = resolve(given)
  const info = await stat(dir).catch(() => null)
  if (!info?.isDirectory()) {
    throw new AgentEvalOpsError(
      'INFRA_FAILURE',
      `commandRunner: the working directory ${JSON.stringify(dir)} does not exist or is not a directory`,
      {
        hint:
          configured === undefined
            ? "Check the benchmark's prepare() (env.workdir)."
            : 'Check the cwd option.',
      },
    )
  }
  return { dir, temporary: false }
}

/**
 * A fresh folder per trial for stdout/stderr, outside the workspace: files in the workspace would be seen by state
 * checks (and could be altered by the agent).
 */
async function artifactDirectory(root: string | undefined, taskId: string): Promise<string> {
  const slug = taskId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60)
  return infra(async () => {
    if (root === undefined) return mkdtemp(join(tmpdir(), `aeo-command-${slug}-`))
    await mkdir(root, { recursive: true })
    return mkdtemp(join(resolve(root), `${slug}-`))
  }, 'a folder for the command output')
}

async function infra<T>(make: () => Promise<T>, what: string): Promise<T> {
  try {
    return await make()
  } catch (e) {
    throw new AgentEvalOpsError(
      'INFRA_FAILURE',
      `commandRunner could not create ${what}: ${errorMessage(e)}`,
      {
        cause: e,
      },
    )
  }
}
