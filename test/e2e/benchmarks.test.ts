// Real benchmarks through `agentevalops run <config.yaml>` as a child process: a SWE-bench-style repository task
// (git worktrees, the agent's patch.diff in the bundle, stale worktrees of a SIGKILLed run cleaned by the next run)
// and Harbor task folders (the oracle solution passes, a no-op fails). The CLI is built from source (buildCli).
import { existsSync } from 'node:fs'
import { cp, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  FIXTURE_INSTANCE_ID,
  OPS_FIXED,
  buildFixtureRepo,
  worktreePaths,
} from '../benchmarks/repo/fixture-repo.ts'
import {
  REPO_ROOT,
  bundleDirs,
  pollUntil,
  readScores,
  runCli,
  startCli,
  tail,
  validateWithCli,
  useBuiltCli,
} from './helpers.ts'

const { cli, newTemp } = useBuiltCli(120_000)

/** A RunConfig as JSON, which is YAML too. */
async function writeConfig(dir: string, name: string, config: object): Promise<string> {
  const path = join(dir, `${name}.yaml`)
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`)
  return path
}

describe('a repository task (SWE-bench instance format)', () => {
  it('passes with the right fix, keeps its patch.diff, and cleans the worktrees a SIGKILLed run left', async () => {
    const work = await newTemp('aeo-e2e-repo-')
    const fixture = await buildFixtureRepo(join(work, 'fixture'))
    const scratch = join(work, 'scratch')
    // The scripted agent writes the fix into its worktree, then answers, after `holdMs`.
    const config = (holdMs: number) => ({
      name: `repo-fix-${holdMs}`,
      benchmark: {
        id: 'repo',
        // Relative to this config file's folder.
        options: { path: 'fixture/instances.jsonl', scratch_dir: 'scratch', test_timeout_seconds: 60 },
      },
      agent: {
        runner: 'mock-scripted',
        options: {
          scripts: {
            [FIXTURE_INSTANCE_ID]: {
              steps: [
                { kind: 'write_file', path: 'calc/ops.py', content: OPS_FIXED },
                { kind: 'final_answer', answer: 'clamp fixed', delayMs: holdMs },
              ],
            },
          },
        },
      },
    })

    // A run killed while its trial holds a worktree: nothing tears it down.
    const killedRuns = await newTemp('aeo-e2e-repo-runs-')
    const killed = startCli(cli(), ['run', await writeConfig(work, 'hold', config(120_000))], {
      runsDir: killedRuns,
    })
    try {
      // Until the agent has written its fix, so the kill finds the worktree whole and the trial holding it.
      await pollUntil(
        async () => {
          const trees = (await worktreePaths(fixture.repoPath)).filter((p) => p !== fixture.repoPath)
          const written = await Promise.all(
            trees.map((p) => readFile(join(p, 'calc', 'ops.py'), 'utf8').catch(() => '')),
          )
          return written.includes(OPS_FIXED) ? true : undefined
        },
        {
          timeoutMs: 60_000,
          describe: () => `the agent never wrote its fix; output:\n${tail(killed.output)}`,
        },
      )
    } finally {
      killed.killGroup('SIGKILL')
      await killed.exited
    }
    const stale = (await worktreePaths(fixture.repoPath)).filter((p) => p !== fixture.repoPath)
    expect(stale).toHaveLength(1)
    expect(existsSync(stale[0]!)).toBe(true)

    // The next run cleans up after it, and leaves nothing of its own.
    const runsDir = await newTemp('aeo-e2e-repo-runs-')
    const result = await runCli(cli(), ['run', await writeConfig(work, 'fix', config(0))], {
      runsDir,
      timeoutMs: 120_000,
    })
    expect(result.code, tail(result.output)).toBe(0)
    expect(existsSync(stale[0]!)).toBe(false)
    expect(await worktreePaths(fixture.repoPath)).toEqual([fixture.repoPath])
    const leftovers = await readdir(join(scratch, 'agentevalops-repo'))
    for (const pid of leftovers) expect(await readdir(join(scratch, 'agentevalops-repo', pid))).toEqual([])

    const [bundle] = await bundleDirs(runsDir)
    const scores = await readScores(bundle!)
    const trial = scores.trials[0]!
    expect(trial).toMatchObject({ taskId: FIXTURE_INSTANCE_ID, outcome: 'passed' })
    expect(trial.scores[0]).toMatchObject({ evaluatorId: 'repo-grade', score: 1 })
    const artifact = trial.result?.artifacts.find((a) => a.name === 'patch.diff')
    expect(artifact?.path).toMatch(/^artifacts\/repo-[0-9a-f]{8}\/fixture__calc-1[^/]*\.t0\/patch\.diff$/)
    const diff = await readFile(join(bundle!, artifact!.path), 'utf8')
    expect(diff).toContain('calc/ops.py')
    expect(diff).toMatch(/^\+.*return hi/m)
    const validation = await validateWithCli(bundle!)
    expect(validation.code, `${validation.stdout}\n${validation.stderr}`).toBe(0)
  }, 240_000)
})

describe('Harbor task folders', () => {
  const fixtures = join(REPO_ROOT, 'test', 'benchmarks', 'harbor', 'fixtures', 'tasks')

  it('pass with their oracle solution and fail with an agent that does nothing', async () => {
    const dir = await newTemp('aeo-e2e-harbor-')
    const run = async (runner: string) => {
      const runsDir = await newTemp('aeo-e2e-harbor-runs-')
      const file = await writeConfig(dir, runner, {
        name: `harbor-${runner}`,
        benchmark: { id: 'harbor', options: { path: fixtures } },
        agent: { runner },
        gate: { min_pass_rate: 0 },
      })
      const result = await runCli(cli(), ['run', file], { runsDir, timeoutMs: 120_000 })
      expect(result.code, tail(result.output)).toBe(0)
      const [bundle] = await bundleDirs(runsDir)
      const validation = await validateWithCli(bundle!)
      expect(validation.code, `${validation.stdout}\n${validation.stderr}`).toBe(0)
      return (await readScores(bundle!)).trials
    }
    const oracle = await run('harbor-oracle')
    expect(oracle.length).toBeGreaterThanOrEqual(3)
    expect(oracle.map((t) => [t.taskId, t.outcome, t.scores[0]?.evaluatorId])).toEqual(
      oracle.map((t) => [t.taskId, 'passed', 'harbor-grade']),
    )
    const noop = await run('noop')
    expect(noop.map((t) => t.outcome)).toEqual(noop.map(() => 'failed'))
  }, 240_000)

  it("stop any runner at the task's [agent] timeout_sec", async () => {
    const dir = await newTemp('aeo-e2e-harbor-timeout-')
    // hello-file, with an agent time limit of 1 s, against a scripted agent that would answer after 30 s.
    await cp(join(fixtures, 'hello-file'), join(dir, 'tasks', 'hello-file'), { recursive: true })
    const toml = join(dir, 'tasks', 'hello-file', 'task.toml')
    await writeFile(
      toml,
      (await readFile(toml, 'utf8')).replace(/\[agent\]\ntimeout_sec = [\d.]+/, '[agent]\ntimeout_sec = 1'),
    )
    const runsDir = await newTemp('aeo-e2e-harbor-timeout-runs-')
    const file = await writeConfig(dir, 'slow', {
      name: 'harbor-slow',
      benchmark: { id: 'harbor', options: { path: 'tasks' } },
      agent: {
        runner: 'mock-scripted',
        options: {
          scripts: { 'hello-file': { steps: [{ kind: 'final_answer', answer: 'late', delayMs: 30_000 }] } },
        },
        resource_limits: { max_wall_seconds: 120 },
      },
      gate: { min_pass_rate: 0 },
    })
    const result = await runCli(cli(), ['run', file], { runsDir, timeoutMs: 60_000 })
    expect(result.code, tail(result.output)).toBe(0)
    const [bundle] = await bundleDirs(runsDir)
    const [trial] = (await readScores(bundle!)).trials
    expect(trial).toMatchObject({ taskId: 'hello-file', outcome: 'limit_exceeded' })
    expect(trial!.result).toMatchObject({
      terminatedBy: 'limit_time',
      error: 'time limit reached: maxWallSeconds is 1',
    })
  }, 120_000)
})
