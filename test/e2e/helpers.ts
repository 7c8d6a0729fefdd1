// Shared helpers of the end-to-end tests: each test drives a REAL Vitest child process (the repo, or a throwaway
// project wired to this repo's plugin by absolute path) and then reads what it left on disk.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll } from 'vitest'
import { main } from '../../src/cli/main.ts'
import type { CliIO } from '../../src/cli/io.ts'
import { RunMetadata, ScoresFile, TraceEvent, type ScoredTrial } from '../../src/core/index.ts'

/** The repository root (no trailing slash). */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '')
export const VITEST_ENTRY = join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs')

/** An absolute path into this repository, quoted for use as an import specifier in generated source. */
export function repoImport(relativePath: string): string {
  return JSON.stringify(join(REPO_ROOT, relativePath))
}

/**
 * The child's environment: ours minus what the parent Vitest worker set for itself (VITEST_*, pool ids) and any
 * AGENTEVALOPS_* setting of the caller, plus CI=true, no colours and a runs folder of the test's own.
 */
export function childEnv(runsDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(VITEST|AGENTEVALOPS_)/.test(name) || name === 'FORCE_COLOR') continue
    env[name] = value
  }
  return { ...env, CI: 'true', NO_COLOR: '1', AGENTEVALOPS_RUNS_DIR: runsDir, ...extra }
}

export interface ExitInfo {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface VitestResult extends ExitInfo {
  stdout: string
  stderr: string
  /** stdout and stderr together, for "does the output mention X" checks. */
  output: string
}

export interface StartOptions {
  /** Working directory (the Vitest root). Default: the repository. */
  cwd?: string
  runsDir: string
  env?: Record<string, string>
}

/** Runs Vitest to its end (bounded by `timeoutMs`) and always kills what is left of its process group. */
export async function runVitest(
  args: readonly string[],
  options: StartOptions & { timeoutMs?: number },
): Promise<VitestResult> {
  const proc = new VitestProcess(args, options)
  try {
    return await proc.waitForExit(options.timeoutMs ?? 40_000)
  } finally {
    proc.killGroup()
  }
}

export function tail(text: string, chars = 4000): string {
  return text.length > chars ? `…${text.slice(-chars)}` : text
}

/** Polls `probe` until it returns a value other than undefined; throws `describe()` after `timeoutMs`. */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number; describe: () => string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline)
      throw new Error(`timed out after ${options.timeoutMs} ms: ${options.describe()}`)
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50))
  }
}

export interface TempDir {
  path: string
  remove(): Promise<void>
}

export async function tempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix))
  return { path, remove: () => rm(path, { recursive: true, force: true, maxRetries: 5 }) }
}

/** Names of the files or folders in `dir`, sorted; [] when it does not exist. */
export async function listDir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort()
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw e
  }
}

/** Bundle folders of a runs folder: every entry but the dot-folders (`.staging`). */
export async function bundleDirs(runsDir: string): Promise<string[]> {
  const entries = await readdir(runsDir, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return []
    throw e
  })
  return entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => join(runsDir, entry.name))
    .sort()
}

/** `agentevalops validate-bundle <dir>` through the CLI entry, in process. */
export async function validateWithCli(
  dir: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout: string[] = []
  const stderr: string[] = []
  const io: CliIO = { out: (line) => void stdout.push(line), err: (line) => void stderr.push(line) }
  const code = await main(['validate-bundle', dir], io)
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') }
}

export async function readScores(bundleDir: string): Promise<ScoresFile> {
  return ScoresFile.parse(JSON.parse(await readFile(join(bundleDir, 'scores.json'), 'utf8')))
}

export async function readMetadata(bundleDir: string): Promise<RunMetadata> {
  return RunMetadata.parse(JSON.parse(await readFile(join(bundleDir, 'metadata.json'), 'utf8')))
}

export async function readBundleEvents(bundleDir: string): Promise<TraceEvent[]> {
  const text = await readFile(join(bundleDir, 'traces.jsonl'), 'utf8')
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => TraceEvent.parse(JSON.parse(line)) as TraceEvent)
}

export function trialOf(scores: ScoresFile, taskId: string, trial = 0): ScoredTrial {
  const found = scores.trials.find((t) => t.taskId === taskId && t.trial === trial)
  if (!found) throw new Error(`no trial ${taskId} #${trial} in scores.json`)
  return found
}

export function eventsOf(events: readonly TraceEvent[], taskId: string, trial = 0): TraceEvent[] {
  return events.filter((e) => e.taskId === taskId && e.trial === trial)
}

export interface TempProject {
  /** The Vitest root of the project. */
  root: string
  /** A separate temp folder, passed as AGENTEVALOPS_RUNS_DIR. */
  runsDir: string
  write(relativePath: string, content: string): Promise<void>
  remove(): Promise<void>
}

/**
 * A throwaway Vitest project outside the repo: `node_modules` is a symlink to the repo's, the config loads the
 * plugin from this repo by absolute path, and `files` (e.g. `evals/x.eval.ts`) import the SDK the same way.
 * `package.json` says `"type": "module"`: without it Vite bundles the config as CommonJS and Vitest refuses it.
 */
export async function createTempProject(
  files: Record<string, string>,
  options: { pluginOptions?: string } = {},
): Promise<TempProject> {
  const root = await mkdtemp(join(tmpdir(), 'aeo-e2e-project-'))
  const runsDir = await mkdtemp(join(tmpdir(), 'aeo-e2e-runs-'))
  const write = async (relativePath: string, content: string): Promise<void> => {
    const path = join(root, relativePath)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, content)
  }
  const remove = async (): Promise<void> => {
    await rm(root, { recursive: true, force: true, maxRetries: 5 })
    await rm(runsDir, { recursive: true, force: true, maxRetries: 5 })
  }
  try {
    await symlink(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir')
    await write('package.json', `${JSON.stringify({ name: 'aeo-e2e', private: true, type: 'module' })}\n`)
    await write(
      'vitest.config.ts',
      [
        `import { defineConfig } from 'vitest/config'`,
        `import { agentEvalOps } from ${repoImport('plugin/index.ts')}`,
        ``,
        `export default defineConfig({`,
        `  test: { projects: [{ plugins: [agentEvalOps(${options.pluginOptions ?? ''})], test: { name: 'evals' } }] },`,
        `})`,
        ``,
      ].join('\n'),
    )
    for (const [path, content] of Object.entries(files)) await write(path, content)
  } catch (e) {
    await remove()
    throw e
  }
  return { root, runsDir, write, remove }
}

/** The import block generated eval files start with: the SDK pieces they use, by absolute path. */
export const EVAL_IMPORTS = [
  `import { mockRunner } from ${repoImport('src/agents/index.ts')}`,
  `import { defineTask, type BenchmarkAdapter, type TaskSpec } from ${repoImport('src/core/index.ts')}`,
  `import { toyBenchmark, toyScripts } from ${repoImport('src/benchmarks/index.ts')}`,
  `import { matchesExpected } from ${repoImport('src/evaluators/index.ts')}`,
  `import { evalBenchmark } from ${repoImport('plugin/index.ts')}`,
].join('\n')

/**
 * An eval file of `taskCount` slow scripted trials (four steps of `stepDelayMs`, the tool call staggered by task so
 * that trials in flight end at different moments): the runs the kill and crash tests stop part-way.
 */
export function slowSuiteEval(taskCount: number, stepDelayMs: number): string {
  return `${EVAL_IMPORTS}

const tasks: TaskSpec[] = Array.from({ length: ${taskCount} }, (_, i) =>
  defineTask({ id: 'slow-' + String(i).padStart(2, '0'), benchmark: 'slow', prompt: 'task ' + i, expected: 'done' }),
)
const benchmark: BenchmarkAdapter = {
  id: 'slow',
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: 'slow', version: '1', datasetChecksum: 'e2e' }),
}
evalBenchmark({
  benchmark,
  runner: mockRunner({
    scripts: (task) => ({
      steps: [
        { kind: 'plan', text: 'start ' + task.id, delayMs: ${stepDelayMs} },
        { kind: 'tool_call', tool: 'work', args: { task: task.id }, delayMs: ${stepDelayMs} + (Number(task.id.slice(5)) % 5) * 40 },
        { kind: 'tool_result', tool: 'work', result: 'ok', delayMs: ${stepDelayMs} },
        { kind: 'final_answer', answer: 'done', tokens: 10, costUsd: 0.001, delayMs: ${stepDelayMs} },
      ],
    }),
  }),
  evaluators: [matchesExpected()],
})
`
}

/**
 * An eval file of tasks that ask the scripted agent to say "yes" (exact match), answered "no" where `wrong` says:
 * the small suites the baseline and comparison tests regress on purpose. `extra` is pasted into evalBenchmark's
 * options (e.g. `baseline: 'latest',`).
 */
export function sayYesSuiteEval(options: {
  benchmark: string
  taskIds: readonly string[]
  wrong: (index: number) => boolean
  trials?: number
  extra?: string
}): string {
  const scripts = Object.fromEntries(
    options.taskIds.map((id, i) => [
      id,
      {
        steps: [
          { kind: 'model_call', text: 'thinking', tokens: 10 },
          { kind: 'final_answer', answer: options.wrong(i) ? 'no' : 'yes' },
        ],
      },
    ]),
  )
  const id = JSON.stringify(options.benchmark)
  return `${EVAL_IMPORTS}

const tasks: TaskSpec[] = ${JSON.stringify(options.taskIds)}.map((id) =>
  defineTask({ id, benchmark: ${id}, prompt: 'Say yes.', expected: 'yes' }),
)
const benchmark: BenchmarkAdapter = {
  id: ${id},
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: ${id}, version: '1', datasetChecksum: 'e2e' }),
}
evalBenchmark({
  benchmark,
  runner: mockRunner({ scripts: ${JSON.stringify(scripts)} }),
  evaluators: [matchesExpected()],
  trials: ${options.trials ?? 1},
  gate: { minPassRate: 0 },
  ${options.extra ?? ''}
})
`
}

// ---------------------------------------------------------------------------------------------------------------
// The agentevalops CLI as a child process

/**
 * A child process in its own process group (`detached`), so that killing the group also ends Vitest's forks-pool
 * workers, which a kill of the main process alone leaves running as orphans.
 */
export class ProcessGroup {
  readonly child: ChildProcess
  readonly exited: Promise<ExitInfo>
  private out = ''
  private err = ''

  constructor(command: string, args: readonly string[], options: StartOptions) {
    this.child = spawn(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: childEnv(options.runsDir, options.env),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (this.out += chunk))
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.err += chunk))
    this.exited = new Promise((resolve, reject) => {
      this.child.once('error', reject)
      this.child.once('close', (code, signal) => resolve({ code, signal }))
    })
  }

  get stdout(): string {
    return this.out
  }

  get stderr(): string {
    return this.err
  }

  get output(): string {
    return `${this.out}\n${this.err}`
  }

  /** Signals the main process only (what a terminal's Ctrl+C would reach first is the whole group; see below). */
  signal(signal: NodeJS.Signals): void {
    if (this.child.pid !== undefined && this.child.exitCode === null) this.child.kill(signal)
  }

  /** Whether any process of the group is still alive. */
  groupAlive(): boolean {
    if (this.child.pid === undefined) return false
    try {
      process.kill(-this.child.pid, 0)
      return true
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false
      throw e
    }
  }

  /** Sends `signal` to the whole process group; a group that is already gone is not an error. */
  killGroup(signal: NodeJS.Signals = 'SIGKILL'): void {
    if (this.child.pid === undefined) return
    try {
      process.kill(-this.child.pid, signal)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e
    }
  }

  /** Waits for the exit; past `timeoutMs` the group is killed and this throws with the output so far. */
  async waitForExit(timeoutMs: number): Promise<VitestResult> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs)
    })
    try {
      const first = await Promise.race([this.exited, timeout])
      if (first === 'timeout') {
        this.killGroup()
        throw new Error(`the child did not exit within ${timeoutMs} ms; output so far:\n${tail(this.output)}`)
      }
      return { ...first, stdout: this.out, stderr: this.err, output: this.output }
    } finally {
      clearTimeout(timer)
    }
  }
}

/** Vitest (its CLI entry under this Node) as a process group. */
export class VitestProcess extends ProcessGroup {
  constructor(args: readonly string[], options: StartOptions) {
    super(process.execPath, [VITEST_ENTRY, ...args], options)
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error('vitest child process has no pid (spawn failed)')
    return this.child.pid
  }
}

export interface BuiltCli {
  /** The CLI entry (`src/cli/index.js` of the build). */
  entry: string
  /** The build folder. */
  dir: string
  remove(): Promise<void>
}

/**
 * Builds the package from source with esbuild the way tsup does (the entries of tsup.config.ts, code splitting,
 * dependencies external), into a folder under the repo's node_modules/.cache. The layout is the published one
 * (`plugin/setup.js`, `plugin/config-eval.js` beside shared chunks at the top), so the plugin finds its own files
 * exactly as it does from dist/, and packages resolve from the repo's node_modules. Never a stale dist/.
 */
export async function buildCli(): Promise<BuiltCli> {
  const { build } = await import('esbuild')
  const config = await readFile(join(REPO_ROOT, 'tsup.config.ts'), 'utf8')
  const entryPoints: Record<string, string> = {}
  for (const [, name, source] of config.matchAll(/'([\w/-]+)': '([\w/.-]+\.ts)'/g))
    entryPoints[name!] = join(REPO_ROOT, source!)
  if (!entryPoints['src/cli/index'] || !entryPoints['plugin/config-eval'])
    throw new Error(`tsup.config.ts entries not understood: ${JSON.stringify(entryPoints)}`)
  const dir = join(
    REPO_ROOT,
    'node_modules',
    '.cache',
    'agentevalops-test',
    `cli-run-${process.pid}-${Date.now()}`,
  )
  await mkdir(dir, { recursive: true })
  // Under node_modules, Node looks no further up for a package.json "type": ESM needs one of its own.
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n')
  await build({
    entryPoints,
    outdir: dir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  })
  return {
    entry: join(dir, 'src', 'cli', 'index.js'),
    dir,
    remove: () => rm(dir, { recursive: true, force: true, maxRetries: 5 }),
  }
}

/** `node <cli> ...args` in its own process group (see ProcessGroup). */
export function startCli(cli: BuiltCli, args: readonly string[], options: StartOptions): ProcessGroup {
  return new ProcessGroup(process.execPath, [cli.entry, ...args], options)
}

/** Runs the CLI to its end (bounded by `timeoutMs`) and always kills what is left of its process group. */
export async function runCli(
  cli: BuiltCli,
  args: readonly string[],
  options: StartOptions & { timeoutMs?: number },
): Promise<VitestResult> {
  const proc = startCli(cli, args, options)
  try {
    return await proc.waitForExit(options.timeoutMs ?? 40_000)
  } finally {
    proc.killGroup()
  }
}

/** One trial's events in a staging folder, as its worker logged them. */
export interface StagedTrace {
  stagingDir: string
  benchmark: string
  taskId: string
  trial: number
  /** Its events as JSONL, one complete log line each (a torn last line of the log is no event yet). */
  text: string
  /** Whether a complete line holds its terminal event: the trial has ended. */
  ended: boolean
}

/** The worker logs of every staging folder of a runs dir. */
export async function stagedLogFiles(runsDir: string): Promise<string[]> {
  const staging = join(runsDir, '.staging')
  const files: string[] = []
  for (const run of await listDir(staging))
    for (const name of await listDir(join(staging, run, 'logs')))
      if (name.endsWith('.jsonl')) files.push(join(staging, run, 'logs', name))
  return files
}

/** Every trial's events in the staging folders of a runs dir (or in one staging folder), from the worker logs. */
export async function stagedTraces(runsDir: string, stagingDir?: string): Promise<StagedTrace[]> {
  const traces = new Map<string, StagedTrace>()
  for (const log of await stagedLogFiles(runsDir)) {
    const dir = dirname(dirname(log))
    if (stagingDir !== undefined && dir !== stagingDir) continue
    const lines = (await readFile(log, 'utf8').catch(() => '')).split('\n').slice(0, -1)
    for (const line of lines) {
      const parsed = JSON.parse(line) as { event?: TraceEvent }
      const event = parsed.event
      if (!event) continue
      const key = `${dir}\u0000${event.benchmark}\u0000${event.taskId}\u0000${event.trial}`
      let trace = traces.get(key)
      if (!trace) {
        trace = {
          stagingDir: dir,
          benchmark: event.benchmark ?? '',
          taskId: event.taskId,
          trial: event.trial,
          text: '',
          ended: false,
        }
        traces.set(key, trace)
      }
      trace.text += `${JSON.stringify(event)}\n`
      if (event.kind === 'agent.terminal') trace.ended = true
    }
  }
  return [...traces.values()]
}

/** The trials in the staging folder of a runs dir whose trial has ended (a full line with its terminal event). */
export async function finishedStagedTraces(runsDir: string): Promise<StagedTrace[]> {
  return (await stagedTraces(runsDir)).filter((t) => t.ended)
}

/** The finished trials' records in the staging folders of a runs dir: the whole record lines of the worker logs. */
export async function stagedRecordLines(runsDir: string): Promise<unknown[]> {
  const records: unknown[] = []
  for (const log of await stagedLogFiles(runsDir)) {
    const lines = (await readFile(log, 'utf8').catch(() => '')).split('\n').slice(0, -1)
    for (const line of lines)
      if (line.startsWith('{"record":')) records.push((JSON.parse(line) as { record: unknown }).record)
  }
  return records
}

/**
 * A test file's built CLI and temp folders: built before its tests, removed after them. `cli()` is the build;
 * `newTemp(prefix)` makes a folder that goes with the rest.
 */
export function useBuiltCli(timeoutMs = 120_000): {
  cli: () => BuiltCli
  newTemp: (prefix: string) => Promise<string>
} {
  let built: BuiltCli | undefined
  const temps: TempDir[] = []
  beforeAll(async () => {
    built = await buildCli()
  }, timeoutMs)
  afterAll(async () => {
    await built?.remove()
    for (const dir of temps) await dir.remove()
  }, 30_000)
  return {
    cli: () => {
      if (!built) throw new Error('the CLI is built in beforeAll: use cli() inside a test')
      return built
    },
    newTemp: async (prefix) => {
      const dir = await tempDir(prefix)
      temps.push(dir)
      return dir.path
    },
  }
}
