// `agentevalops run <config.yaml…>` as a real child process: the five toy configs, a broken config, the same run
// through `vitest --project evals` with AGENTEVALOPS_CONFIG, the replay command, Ctrl+C (once and twice), and a
// third-party adapter package from a throwaway project. The CLI is built from source for the test (buildCli).
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import pLimit from 'p-limit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOY_TASK_IDS, toyTasks } from '../../src/benchmarks/index.ts'
import {
  checksumOf,
  RunMetadata,
  shardOfTask,
  type ScoredTrial,
  type ScoresFile,
} from '../../src/core/index.ts'
import {
  ProcessGroup,
  REPO_ROOT,
  buildCli,
  bundleDirs,
  finishedStagedTraces,
  pollUntil,
  readScores,
  runCli,
  runVitest,
  startCli,
  tail,
  tempDir,
  validateWithCli,
  type BuiltCli,
  type TempDir,
  type VitestResult,
} from './helpers.ts'

const EXAMPLE_PLUGIN = join(REPO_ROOT, 'examples', 'adapter-plugin')

let cli: BuiltCli
const temps: TempDir[] = []
// At most three Vitest children at a time: the toy configs have 3 s wall-clock limits, and a starved 2-core
// machine must not turn a pass into a timeout.
const limit = pLimit(3)

async function newTemp(prefix: string): Promise<string> {
  const dir = await tempDir(prefix)
  temps.push(dir)
  return dir.path
}

interface Run {
  runsDir: string
  result: Promise<VitestResult>
}

/** `agentevalops run …args` from `cwd` (default: the repo), with a runs folder of its own. */
async function cliRun(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const runsDir = await newTemp('aeo-cli-runs-')
  const result = limit(() => runCli(cli, args, { ...options, runsDir, timeoutMs: 60_000 }))
  result.catch(() => {}) // awaited by the tests
  return { runsDir, result }
}

/** The single bundle of a run after checking its exit code; validated with validate-bundle. */
async function onlyBundle(run: Run, code: number): Promise<{ result: VitestResult; dir: string }> {
  const result = await run.result
  expect(result.code, tail(result.output)).toBe(code)
  const dirs = await bundleDirs(run.runsDir)
  expect(dirs, 'exactly one bundle folder').toHaveLength(1)
  const validated = await validateWithCli(dirs[0]!)
  expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)
  return { result, dir: dirs[0]! }
}

async function readMetadata(dir: string): Promise<RunMetadata> {
  return RunMetadata.parse(JSON.parse(await readFile(join(dir, 'metadata.json'), 'utf8')))
}

/** What must repeat between runs: per trial, its outcome and scores and verdicts (not timings or usage). */
function outcomes(scores: ScoresFile) {
  return scores.trials.map((t: ScoredTrial) => ({
    benchmark: t.benchmark.id,
    task: t.taskId,
    trial: t.trial,
    outcome: t.outcome,
    passed: t.passed,
    terminatedBy: t.result?.terminatedBy ?? null,
    scores: t.scores.map((s) => ({ id: s.evaluatorId, score: s.score, passed: s.passed })),
    verdicts: t.verdicts.map((v) => ({ id: v.checkerId, verdict: v.verdict })),
  }))
}

/** A config with exactly five mistakes, one of each kind the issue lists. */
const FIVE_MISTAKES = `name: five-mistakes
trials: three
colour: blue
agent:
  runner: mock-scrpited
  resource_limits:
    max_tokens: -5
evaluators: [matches-expected]
`

beforeAll(async () => {
  cli = await buildCli()
}, 30_000)

afterAll(async () => {
  await cli?.remove()
  for (const dir of temps) await dir.remove()
}, 30_000)

describe('agentevalops run configs/<toy>.yaml (child processes)', { timeout: 90_000 }, () => {
  const runs: Record<string, Run> = {}
  let viaVitest: Run
  let withUserConfig: Run
  let shards: Run[]
  let brokenViaVitest: Run
  let unknownTask: Run
  let configsDir: string

  beforeAll(async () => {
    for (const name of ['toy_smoke', 'toy_failure', 'toy_policy_violation', 'toy_trace_limit', 'toy_mixed'])
      runs[name] = await cliRun(['run', `configs/${name}.yaml`])
    withUserConfig = await cliRun([
      'run',
      'configs/toy_smoke.yaml',
      '--vitest-config',
      'vitest.config.ts',
      '--project',
      'evals',
      '-t',
      'arith-add',
      '--reporter',
      'dot',
    ])
    shards = [
      await cliRun(['run', 'configs/toy_smoke.yaml', '--shard', '1/2']),
      await cliRun(['run', 'configs/toy_smoke.yaml', '--shard=2/2']),
    ]
    const runsDir = await newTemp('aeo-cli-runs-')
    viaVitest = {
      runsDir,
      result: limit(() =>
        runVitest(['run', '--project', 'evals'], {
          runsDir,
          env: { AGENTEVALOPS_CONFIG: 'configs/toy_smoke.yaml' },
          timeoutMs: 60_000,
        }),
      ),
    }
    viaVitest.result.catch(() => {})

    configsDir = await newTemp('aeo-cli-configs-')
    await writeFile(join(configsDir, 'five-mistakes.yaml'), FIVE_MISTAKES)
    await writeFile(
      join(configsDir, 'unknown-task.yaml'),
      [
        'name: unknown-task',
        'benchmark: { id: toy, tasks: [arith-add, no-such-task] }',
        'agent: { runner: mock-scripted }',
        '',
      ].join('\n'),
    )
    unknownTask = await cliRun(['run', join(configsDir, 'unknown-task.yaml')])
    const brokenRuns = await newTemp('aeo-cli-runs-')
    brokenViaVitest = {
      runsDir: brokenRuns,
      result: limit(() =>
        runVitest(['run', '--project', 'evals'], {
          runsDir: brokenRuns,
          env: { AGENTEVALOPS_CONFIG: join(configsDir, 'five-mistakes.yaml') },
          timeoutMs: 60_000,
        }),
      ),
    }
    brokenViaVitest.result.catch(() => {})
  })

  it('toy_smoke exits 0 with one valid bundle of the seven passing tasks, its labels, hash and replay', async () => {
    const { result, dir } = await onlyBundle(runs.toy_smoke!, 0)
    const scores = await readScores(dir)
    const passing = toyTasks().filter((t) => t.metadata.expectedOutcome === 'passed')
    expect(scores.trials.map((t) => t.taskId).sort()).toEqual(passing.map((t) => t.id).sort())
    expect(scores.trials.every((t) => t.outcome === 'passed')).toBe(true)
    const metadata = await readMetadata(dir)
    expect(metadata).toMatchObject({
      status: 'complete',
      labels: { purpose: 'smoke', config: 'toy-smoke' },
      vitestProject: 'evals',
      trialCount: 7,
    })
    const replay = await readFile(join(dir, 'replay_command.txt'), 'utf8')
    expect(replay.split('\n')[1]).toBe('npx agentevalops run configs/toy_smoke.yaml')
    // The console summary names every trial.
    for (const task of passing) expect(result.stdout).toMatch(new RegExp(`${task.id} #0\\s+passed`))
  })

  it('toy_failure exits 1 and names the failing tasks; the bundle still holds all three', async () => {
    const { result, dir } = await onlyBundle(runs.toy_failure!, 1)
    expect(result.output).toMatch(/FAIL .*toy-failure > toy > wrong-answer #0/)
    expect(result.output).toMatch(/FAIL .*toy-failure > toy > agent-error #0/)
    expect(result.output).not.toMatch(/FAIL .*arith-add/)
    expect(result.output).toContain('matches-expected: 0 — expected "72", got "81"')
    const scores = await readScores(dir)
    expect(Object.fromEntries(scores.trials.map((t) => [t.taskId, t.outcome]))).toEqual({
      [TOY_TASK_IDS.exact]: 'passed',
      [TOY_TASK_IDS.wrongAnswer]: 'failed',
      [TOY_TASK_IDS.agentError]: 'agent_error',
    })
  })

  it('toy_policy_violation exits 1 with a policy FAIL for forbidden-tool in the bundle', async () => {
    const { result, dir } = await onlyBundle(runs.toy_policy_violation!, 1)
    expect(result.output).toMatch(/FAIL .*toy-policy-violation > toy > forbidden-tool #0/)
    const scores = await readScores(dir)
    const forbidden = scores.trials.find((t) => t.taskId === TOY_TASK_IDS.forbiddenTool)!
    expect(forbidden.outcome).toBe('policy_violation')
    expect(forbidden.scores.every((s) => s.passed)).toBe(true) // the answer was right; the way was not
    expect(forbidden.verdicts).toContainEqual(
      expect.objectContaining({ checkerId: 'tool-access', verdict: 'FAIL' }),
    )
    const calc = scores.trials.find((t) => t.taskId === TOY_TASK_IDS.singleTool)!
    expect(calc.outcome).toBe('passed')
    expect(calc.verdicts.map((v) => v.verdict)).toEqual(['PASS', 'PASS'])
  })

  it('toy_trace_limit exits 1 with every trial stopped by its own limit', async () => {
    const { dir } = await onlyBundle(runs.toy_trace_limit!, 1)
    const scores = await readScores(dir)
    const byScenario = Object.fromEntries(
      scores.trials.map((t) => {
        const task = toyTasks().find((x) => x.id === t.taskId)!
        return [task.metadata.scenario as string, [t.outcome, t.result?.terminatedBy]]
      }),
    )
    expect(byScenario).toEqual({
      'cost-ceiling': ['limit_exceeded', 'limit_cost'],
      'token-limit': ['limit_exceeded', 'limit_tokens'],
      'time-limit': ['limit_exceeded', 'limit_time'],
      'turn-limit': ['limit_exceeded', 'limit_turns'],
    })
  })

  it('toy_mixed exits 0 under its aggregate gate, with 15 tasks × 3 trials in the bundle', async () => {
    const { dir } = await onlyBundle(runs.toy_mixed!, 0)
    const scores = await readScores(dir)
    expect(scores.trials).toHaveLength(45)
    expect(new Set(scores.trials.map((t) => t.trial))).toEqual(new Set([0, 1, 2]))
    expect(scores.summary.passed).toBe(21)
  })

  it('AGENTEVALOPS_CONFIG with vitest run --project evals is the same run as agentevalops run', async () => {
    const { result, dir } = await onlyBundle(viaVitest, 0)
    // Only the config's benchmark ran: not the project's own evals/toy.eval.ts (15 toy tasks).
    expect(result.output).not.toContain('toy.eval.ts')
    const [mine, theirs] = await Promise.all([readScores(dir), onlyBundle(runs.toy_smoke!, 0)])
    expect(outcomes(mine)).toEqual(outcomes(await readScores(theirs.dir)))
    const [a, b] = await Promise.all([readMetadata(dir), readMetadata(theirs.dir)])
    expect(a.labels).toEqual(b.labels)
    expect(a.configHash).toBe(b.configHash)
    expect(a.benchmarks).toEqual(b.benchmarks)
    expect(await readFile(join(dir, 'replay_command.txt'), 'utf8')).toBe(
      await readFile(join(theirs.dir, 'replay_command.txt'), 'utf8'),
    )
  })

  it("--vitest-config/--project run the user's evals project; -t and --reporter pass through", async () => {
    const { result, dir } = await onlyBundle(withUserConfig, 0)
    const scores = await readScores(dir)
    expect(scores.trials.map((t) => `${t.taskId} #${t.trial}`)).toEqual(['arith-add #0'])
    expect(await readMetadata(dir)).toMatchObject({ testNamePattern: 'arith-add', vitestProject: 'evals' })
    // The dot reporter, not the default one (which lists each test file with a ✓).
    expect(result.stdout).not.toMatch(/✓ .*config-eval/)
    expect(result.stdout).toContain('Tests  1 passed | 6 skipped (7)')
    const replay = await readFile(join(dir, 'replay_command.txt'), 'utf8')
    expect(replay.split('\n')[1]).toBe('npx agentevalops run configs/toy_smoke.yaml -t arith-add')
  })

  it('--shard splits the tasks (config mode has one test file): disjoint partial bundles that add up', async () => {
    const parts = await Promise.all(shards.map((run) => onlyBundle(run, 0)))
    const taskSets: string[][] = []
    for (const [i, { dir }] of parts.entries()) {
      const metadata = await readMetadata(dir)
      expect(metadata).toMatchObject({ status: 'partial-shard', shard: { index: i + 1, count: 2 } })
      taskSets.push((await readScores(dir)).trials.map((t) => t.taskId))
      const replay = await readFile(join(dir, 'replay_command.txt'), 'utf8')
      expect(replay.split('\n')[1]).toBe(`npx agentevalops run configs/toy_smoke.yaml --shard=${i + 1}/2`)
    }
    // The task-level partition: a hash of benchmark and task id picks each task's shard.
    for (const [i, tasks] of taskSets.entries()) {
      expect(tasks.length).toBeGreaterThan(0)
      for (const task of tasks) expect(shardOfTask('toy', task, 2), task).toBe(i + 1)
    }
    const passing = toyTasks().filter((t) => t.metadata.expectedOutcome === 'passed')
    expect(taskSets.flat().sort()).toEqual(passing.map((t) => t.id).sort())
  })

  it('a config with five mistakes: five located lines on stderr, exit 2, Vitest never started, no bundle', async () => {
    const file = join(configsDir, 'five-mistakes.yaml')
    const run = await cliRun(['run', file])
    const result = await run.result
    expect(result.code, tail(result.output)).toBe(2)
    expect(result.stdout).toBe('')
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(6)
    expect(lines[5]).toBe('agentevalops run: 5 problems in the config; nothing was run.')
    const findings = lines.slice(0, 5)
    for (const line of findings) expect(line.startsWith(`${file}:`), line).toBe(true)
    expect(findings.map((l) => l.slice(file.length + 1).replace(/: .*/, ''))).toEqual([
      '1:1 benchmark', // missing
      '2:1 trials', // wrong type
      '3:1 colour', // unknown key
      '5:3 agent.runner', // unknown runner id
      '7:5 agent.resource_limits.max_tokens', // negative limit
    ])
    expect(findings[3]).toContain('unknown runner "mock-scrpited"')
    expect(result.output).not.toContain('RUN  v')
    expect(await bundleDirs(run.runsDir)).toEqual([])
    expect(existsSync(join(run.runsDir, '.staging'))).toBe(false)
  })

  it('the same broken config stops vitest --project evals with the findings, before any run', async () => {
    const result = await brokenViaVitest.result
    expect(result.code).not.toBe(0)
    const file = join(configsDir, 'five-mistakes.yaml')
    for (const where of [
      '2:1 trials:',
      '3:1 colour:',
      '5:3 agent.runner:',
      '7:5 agent.resource_limits.max_tokens:',
    ])
      expect(result.output).toContain(`${file}:${where}`)
    expect(await bundleDirs(brokenViaVitest.runsDir)).toEqual([])
  })

  it('a task id the benchmark does not have fails the run, naming it', async () => {
    const result = await unknownTask.result
    expect(result.code).toBe(1)
    expect(result.output).toContain('benchmark "toy" has no task "no-such-task"')
    expect(await bundleDirs(unknownTask.runsDir)).toEqual([])
  })
})

describe('replay_command.txt', { timeout: 90_000 }, () => {
  it('repeats the run from the repo root: the same trials, outcomes and scores', async () => {
    const pattern = 'arith-add|wrong-answer|forbidden-tool|time-limit'
    const original = await cliRun([
      'run',
      'configs/toy_mixed.yaml',
      '--trials',
      '2',
      '-t',
      pattern,
      '--label',
      'team=evals',
    ])
    const first = await onlyBundle(original, 0)
    const command = (await readFile(join(first.dir, 'replay_command.txt'), 'utf8')).split('\n')[1]!
    expect(command).toBe(
      `npx agentevalops run configs/toy_mixed.yaml -t '${pattern}' --trials 2 --label team=evals`,
    )

    // The line as written, through a real shell from the repo root; npx and the installed bin are stood in for by
    // the CLI built from source.
    const runsDir = await newTemp('aeo-cli-runs-')
    const script = `npx() { "$@"; }; agentevalops() { "$AEO_NODE" "$AEO_CLI" "$@"; }; ${command}`
    const replay = await limit(async () => {
      const proc = new ProcessGroup('bash', ['-c', script], {
        runsDir,
        env: { AEO_NODE: process.execPath, AEO_CLI: cli.entry },
      })
      try {
        return await proc.waitForExit(60_000)
      } finally {
        proc.killGroup()
      }
    })
    const again = await onlyBundle({ runsDir, result: Promise.resolve(replay) }, 0)

    const [a, b] = await Promise.all([readScores(first.dir), readScores(again.dir)])
    expect(a.trials).toHaveLength(8)
    expect(outcomes(b)).toEqual(outcomes(a))
    const [ma, mb] = await Promise.all([readMetadata(first.dir), readMetadata(again.dir)])
    expect(mb.runId).not.toBe(ma.runId)
    expect(mb.labels).toEqual({ purpose: 'mixed-demo', config: 'toy-mixed', team: 'evals' })
    expect(mb.labels).toEqual(ma.labels)
    expect(mb.configHash).toBe(ma.configHash)
    expect(mb.testNamePattern).toBe(pattern)
  })
})

describe('Ctrl+C during agentevalops run', { timeout: 60_000 }, () => {
  it('cancels the run: exit 130, a valid interrupted bundle with every trial that had finished', async () => {
    const dir = await newTemp('aeo-cli-sigint-')
    const config = join(dir, 'slow.yaml')
    // arith-add answers in 100 ms, capital-france would take 30 s: the interrupt comes in between.
    await writeFile(
      config,
      [
        'name: slow',
        'benchmark: { id: toy, tasks: [arith-add, capital-france] }',
        'agent:',
        '  runner: mock-scripted',
        '  options:',
        '    scripts:',
        '      arith-add: { steps: [{ kind: final_answer, answer: "42", delayMs: 100 }] }',
        '      capital-france: { steps: [{ kind: final_answer, answer: "Paris.", delayMs: 30000 }] }',
        'evaluators: [matches-expected]',
        'trials: 4',
        '',
      ].join('\n'),
    )
    const runsDir = await newTemp('aeo-cli-runs-')
    const proc = startCli(cli, ['run', config], { runsDir })
    try {
      const finished = await pollUntil(
        async () => {
          if (proc.child.exitCode !== null) throw new Error(`exited early:\n${tail(proc.output)}`)
          const done = await finishedStagedTraces(runsDir)
          return done.length >= 4 ? done : undefined
        },
        { timeoutMs: 30_000, intervalMs: 25, describe: () => `4 finished trials\n${tail(proc.output)}` },
      )
      // A trace ends a few milliseconds before its case does (the record is staged and synced in between); the
      // other trials take 30 s, so a short wait lets the four cases end without racing any other.
      await new Promise((resolve) => setTimeout(resolve, 300))
      // A terminal's Ctrl+C reaches the whole process group, workers included.
      const signalledAt = Date.now()
      proc.killGroup('SIGINT')
      const result = await proc.waitForExit(20_000)
      expect(Date.now() - signalledAt).toBeLessThan(10_000) // the 30 s trials were aborted, not waited for
      expect(result.code, tail(result.output)).toBe(130)
      expect(result.output).toContain('cancelling the run')
      expect(result.output).not.toContain('Worker exited unexpectedly')
      expect(result.stdout).toMatch(/run interrupted: 4 finished trials kept, 4 cut short left out/)

      const { dir: bundle } = await onlyBundle({ runsDir, result: Promise.resolve(result) }, 130)
      expect((await readMetadata(bundle)).status).toBe('interrupted')
      const scores = await readScores(bundle)
      expect(finished).toHaveLength(4)
      expect(scores.trials.map((t) => `${t.taskId} #${t.trial}`).sort()).toEqual(
        [0, 1, 2, 3].map((i) => `arith-add #${i}`),
      )
      expect(scores.trials.every((t) => t.outcome === 'passed')).toBe(true)
    } finally {
      proc.killGroup()
      await proc.exited
    }
  })

  it('a second Ctrl+C exits at once, while the first is still waiting on a stuck benchmark', async () => {
    // An adapter package whose benchmark never finishes listing its tasks (a download that hangs): the cancel
    // cannot end the run, the second Ctrl+C must.
    const project = await realpath(await newTemp('aeo-cli-hang-'))
    const pkg = join(project, 'node_modules', 'aeo-hang')
    await mkdir(pkg, { recursive: true })
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'hang', private: true, type: 'module', dependencies: { 'aeo-hang': '1.0.0' } }),
    )
    await writeFile(
      join(pkg, 'package.json'),
      JSON.stringify({
        name: 'aeo-hang',
        version: '1.0.0',
        type: 'module',
        agentevalops: { adapters: './a.js' },
      }),
    )
    await writeFile(
      join(pkg, 'a.js'),
      [
        `import { writeFileSync } from 'node:fs'`,
        `export function register(registry) {`,
        `  registry.register('benchmark', 'hang', (options) => ({`,
        `    id: 'hang', version: '1',`,
        `    listTasks: () => { writeFileSync(options.marker, 'listing'); return new Promise(() => setInterval(() => {}, 1000)) },`,
        `    info: () => ({ id: 'hang', version: '1', datasetChecksum: 'hang' }),`,
        `  }))`,
        `}`,
        ``,
      ].join('\n'),
    )
    const marker = join(project, 'listing.marker')
    await writeFile(
      join(project, 'hang.yaml'),
      [
        'name: hang',
        'benchmark: { id: hang, options: { marker: "${AEO_MARKER}" } }',
        'agent: { runner: mock-scripted }',
        '',
      ].join('\n'),
    )
    const runsDir = await newTemp('aeo-cli-runs-')
    const proc = startCli(cli, ['run', 'hang.yaml'], { cwd: project, runsDir, env: { AEO_MARKER: marker } })
    try {
      await pollUntil(async () => (existsSync(marker) ? true : undefined), {
        timeoutMs: 30_000,
        describe: () => `the benchmark to start listing\n${tail(proc.output)}`,
      })
      proc.killGroup('SIGINT')
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      expect(proc.child.exitCode, 'still waiting after the first Ctrl+C').toBeNull()
      expect(proc.stderr).toContain('Press Ctrl+C again to exit at once')

      const secondAt = Date.now()
      proc.killGroup('SIGINT')
      const result = await proc.waitForExit(10_000)
      expect(Date.now() - secondAt).toBeLessThan(3_000)
      expect(result.code).toBe(130)
      expect(result.stderr).toContain('exiting without waiting for the run to end')
      // Its workers went with it.
      await pollUntil(async () => (proc.groupAlive() ? undefined : true), {
        timeoutMs: 5_000,
        describe: () => 'the process group to be gone',
      })
      expect(await bundleDirs(runsDir)).toEqual([])
    } finally {
      proc.killGroup()
      await proc.exited
    }
  })
})

describe('a third-party adapter package through agentevalops run', { timeout: 90_000 }, () => {
  it('runs example-echo + example-nonempty from a project that installed the example package', async () => {
    const base = await realpath(await newTemp('aeo-cli-plugin-'))
    const project = join(base, 'project')
    await mkdir(project)
    await writeFile(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'plugin-consumer', version: '1.0.0', private: true, type: 'module' })}\n`,
    )
    await npmInstallOffline(project, EXAMPLE_PLUGIN, join(base, 'npm-cache'))
    await writeFile(
      join(project, 'echo.yaml'),
      [
        'name: echo-smoke',
        'run_id: echo-${AEO_RUN_NUMBER}',
        'benchmark:',
        '  id: toy',
        '  tasks: [capital-france, arith-add]',
        'agent:',
        '  runner: example-echo',
        'evaluators: [example-nonempty]',
        '',
      ].join('\n'),
    )
    const env = { AEO_RUN_NUMBER: '7' }
    const run = await cliRun(['run', 'echo.yaml'], { cwd: project, env })
    const { result, dir } = await onlyBundle(run, 0)
    expect(result.output).toContain(`RUN  v`)
    expect(dir).toBe(join(run.runsDir, 'echo-7')) // the config's run id, its reference expanded
    const scores = await readScores(dir)
    expect(scores.trials.map((t) => [t.taskId, t.outcome]).sort()).toEqual([
      ['arith-add', 'passed'],
      ['capital-france', 'passed'],
    ])
    for (const t of scores.trials) {
      expect(t.runner).toEqual({ name: 'example-echo', kind: 'example', config: {} })
      expect(t.scores.map((s) => [s.evaluatorId, s.passed])).toEqual([['example-nonempty', true]])
    }
    const replay = await readFile(join(dir, 'replay_command.txt'), 'utf8')
    expect(replay).toContain('npx agentevalops run echo.yaml\n')
    expect(replay).toContain('the configs refer to (values not recorded): AEO_RUN_NUMBER')
    expect(replay).not.toContain('=7')

    // The same run id again: refused before anything runs; the first bundle is untouched.
    const again = await runCli(cli, ['run', 'echo.yaml'], { cwd: project, runsDir: run.runsDir, env })
    expect(again.code).toBe(2)
    expect(again.stderr).toContain(`a bundle already exists at ${dir}`)
    expect(await bundleDirs(run.runsDir)).toEqual([dir])
    expect(checksumOf(await readScores(dir))).toBe(checksumOf(scores))
  })
})

/** npm install of a local folder with no registry (it installs as a symlink), npm's own settings left out. */
function npmInstallOffline(project: string, folder: string, cache: string): Promise<void> {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) || /^(VITEST|AGENTEVALOPS_)/.test(name)) continue
    env[name] = value
  }
  Object.assign(env, { npm_config_cache: cache, npm_config_update_notifier: 'false', NO_COLOR: '1' })
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      ['install', '--no-audit', '--no-fund', '--offline', folder],
      { cwd: project, env, timeout: 60_000, killSignal: 'SIGKILL', encoding: 'utf8' },
      (error, stdout, stderr) =>
        error ? reject(new Error(`npm install failed: ${error.message}\n${stdout}\n${stderr}`)) : resolve(),
    )
  })
}
