// The repo benchmark end to end: real git worktrees, real test runs (python3), trials through the real engine.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  applyGoldPatch,
  parseTestOutput,
  repoBenchmark,
  REPO_FINDING_TYPES,
  type RepoEnv,
} from '../../../src/benchmarks/repo/index.ts'
import {
  isAgentEvalOpsError,
  sha256,
  type AgentRunner,
  type BenchmarkAdapter,
  type EnvHandle,
  type TaskSpec,
} from '../../../src/core/index.ts'
import { git } from '../../../src/benchmarks/repo/git.ts'
import { folderArtifacts, runTrial, type TrialRun } from '../../../src/engine/index.ts'
import { MemoryTraceStore } from '../../../src/stores/index.ts'
import { inlineRunner } from '../../engine/helpers.ts'
import {
  buildFixtureRepo,
  FIXTURE_INSTANCE_ID,
  FIXTURE_TESTS,
  OPS_FIXED,
  OPS_FIXED_MUL_BROKEN,
  OPS_HANGING,
  realPython,
  worktreePaths,
  writeInstances,
  type FixtureRepo,
} from './fixture-repo.ts'

let tmp: string
let fixture: FixtureRepo
let scratch: string

beforeAll(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'repo-bench-test-')))
  fixture = await buildFixtureRepo(join(tmp, 'fixture'))
  scratch = join(tmp, 'scratch')
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

function bench(overrides: Partial<Parameters<typeof repoBenchmark>[0]> = {}): BenchmarkAdapter {
  return repoBenchmark({ path: fixture.instancesPath, scratch_dir: scratch, ...overrides })
}

async function onlyTask(b: BenchmarkAdapter): Promise<TaskSpec> {
  const tasks = await b.listTasks()
  expect(tasks).toHaveLength(1)
  return tasks[0]!
}

/** A runner that edits the worktree with `edit` and records the env it was given. */
function editing(edit: (task: TaskSpec, env: EnvHandle) => Promise<void>): {
  runner: AgentRunner
  envs: EnvHandle[]
} {
  const envs: EnvHandle[] = []
  const runner = inlineRunner(async (_ctx, task, env) => {
    envs.push(env)
    await edit(task, env)
    return { finalAnswer: 'done' }
  })
  return { runner, envs }
}

const writeOps = (content: string) => async (_task: TaskSpec, env: EnvHandle) =>
  writeFile(join(env.workdir!, 'calc', 'ops.py'), content)

/** What `fn` threw or rejected with; undefined when it did not fail. */
async function failure(fn: () => unknown): Promise<unknown> {
  try {
    await fn()
    return undefined
  } catch (e) {
    return e
  }
}

let trialNo = 0
async function trial(b: BenchmarkAdapter, runner: AgentRunner): Promise<TrialRun> {
  const task = await onlyTask(b)
  trialNo++
  return runTrial({
    runId: 'repo-test',
    benchmark: await b.info(),
    task,
    trial: trialNo,
    runner,
    prepare: b.prepare!.bind(b),
    grade: b.grade!.bind(b),
    gradeTimeoutSeconds: b.gradeTimeoutSeconds,
    teardown: b.teardown!.bind(b),
    artifacts: folderArtifacts(join(tmp, 'artifacts', String(trialNo))),
    traceStore: new MemoryTraceStore(),
  })
}

function gradeScore(run: TrialRun) {
  const [score] = run.record.scores
  expect(score?.evaluatorId).toBe('repo-grade')
  return score!
}

async function expectCleanedUp(envs: EnvHandle[]): Promise<void> {
  expect(envs).toHaveLength(1)
  expect(existsSync(envs[0]!.workdir!)).toBe(false)
  expect(await worktreePaths(fixture.repoPath)).toEqual([fixture.repoPath])
}

describe('repo benchmark: instances', () => {
  it('turns an instance into a task: grading material in expected, checkout in input', async () => {
    const b = bench()
    const task = await onlyTask(b)
    expect(task).toMatchObject({
      id: FIXTURE_INSTANCE_ID,
      benchmark: 'repo',
      prompt: fixture.instance.problem_statement,
      input: { repo: 'calc-repo', base_commit: fixture.baseCommit },
      metadata: { category: 'calc-repo', repo: 'calc-repo' },
      expected: {
        test_patch: fixture.instance.test_patch,
        patch: fixture.instance.patch,
        FAIL_TO_PASS: [FIXTURE_TESTS.clampHigh],
        PASS_TO_PASS: [FIXTURE_TESTS.add, FIXTURE_TESTS.mul, FIXTURE_TESTS.clampLow],
        test_command: fixture.instance.test_command,
        test_output_format: 'tap',
      },
    })
    const info = await b.info()
    expect(info).toEqual({
      id: 'repo',
      version: '1',
      datasetChecksum: sha256(await readFile(fixture.instancesPath)),
      selection: { source: 'instances.jsonl', count: 1 },
    })
    expect(b.gradeTimeoutSeconds).toBeGreaterThan(300)
  })

  it('reads a JSON array too, with lists instead of JSON strings and a string test command', async () => {
    const file = join(tmp, 'array.json')
    const python = await realPython()
    const second = {
      ...fixture.instance,
      instance_id: 'second',
      repo: fixture.repoPath,
      FAIL_TO_PASS: [FIXTURE_TESTS.clampHigh],
      PASS_TO_PASS: [],
      test_command: `  ${python}   run_tests.py `,
      test_output_format: undefined,
    }
    await writeFile(file, JSON.stringify([fixture.instance, second], null, 2))
    const b = repoBenchmark({ path: file, id: 'swe', version: 'v9', ids: ['second'] })
    const [task, ...rest] = await b.listTasks()
    expect(rest).toEqual([])
    expect(task).toMatchObject({
      id: 'second',
      benchmark: 'swe',
      metadata: { category: 'calc-repo', repo: fixture.repoPath },
      expected: {
        FAIL_TO_PASS: [FIXTURE_TESTS.clampHigh],
        PASS_TO_PASS: [],
        test_command: [python, 'run_tests.py'],
        test_output_format: 'pytest',
      },
    })
    expect(await b.info()).toMatchObject({
      id: 'swe',
      version: 'v9',
      selection: { source: 'array.json', ids: ['second'], count: 1 },
    })
    expect((await repoBenchmark({ path: file, limit: 1 }).listTasks()).map((t) => t.id)).toEqual([
      FIXTURE_INSTANCE_ID,
    ])
    // Filters as the toy benchmark's; the copies handed out are the caller's own.
    const all = repoBenchmark({ path: file })
    expect((await all.listTasks({ id: 'second' })).map((t) => t.id)).toEqual(['second'])
    ;(await all.listTasks())[0]!.prompt = 'changed'
    expect((await all.listTasks())[0]!.prompt).toBe(fixture.instance.problem_statement)
  })

  it('rejects a bad instances file with DATASET_INVALID naming the line and field', async () => {
    const cases: [string, string, RegExp][] = [
      ['not-json.jsonl', `${JSON.stringify(fixture.instance)}\n{oops\n`, /:2: line is not JSON/],
      [
        'no-command.jsonl',
        JSON.stringify({ ...fixture.instance, test_command: undefined }),
        /:1 \(\$\.test_command\).*test_command/,
      ],
      [
        'bad-list.jsonl',
        JSON.stringify({ ...fixture.instance, FAIL_TO_PASS: '["a", 3]' }),
        /FAIL_TO_PASS must be a list of test names/,
      ],
      ['no-f2p.jsonl', JSON.stringify({ ...fixture.instance, FAIL_TO_PASS: '[]' }), /at least one test/],
      ['option.jsonl', JSON.stringify({ ...fixture.instance, base_commit: '--output=x' }), /base_commit/],
      [
        'twice.jsonl',
        `${JSON.stringify(fixture.instance)}\n\n${JSON.stringify(fixture.instance)}\n`,
        /:3 .*listed twice/,
      ],
      ['empty.jsonl', '\n', /no instance/],
    ]
    for (const [name, content, message] of cases) {
      const file = join(tmp, name)
      await writeFile(file, content)
      const error = await failure(() => repoBenchmark({ path: file }).listTasks())
      expect(isAgentEvalOpsError(error, 'DATASET_INVALID'), name).toBe(true)
      expect((error as Error).message, name).toMatch(message)
    }
    await expect(repoBenchmark({ path: join(tmp, 'missing.jsonl') }).info()).rejects.toMatchObject({
      code: 'DATASET_INVALID',
    })
    await expect(bench({ ids: ['nope'] }).listTasks()).rejects.toMatchObject({ code: 'CONFIG_INVALID' })
    expect(() => repoBenchmark({ path: '' })).toThrow(/path/)
    expect(() => repoBenchmark({ path: 'x', limit: 0 })).toThrow(/limit/)
  })
})

describe('repo benchmark: parsing test output', () => {
  it('reads pytest -rA summaries and -v lines, the last outcome of a test winning', () => {
    const out = [
      '\x1b[32mtests/test_a.py::test_one PASSED\x1b[0m                    [ 33%]',
      'tests/test_a.py::test_two FAILED                    [ 66%]',
      'tests/test_a.py::TestK::test_p[a-b] PASSED          [100%]',
      '=========================== short test summary info ============================',
      'PASSED tests/test_a.py::test_one',
      'FAILED tests/test_a.py::test_two - AssertionError: assert 1 == 2',
      'PASSED tests/test_a.py::TestK::test_p[a-b]',
      'XFAIL tests/test_a.py::test_x - reason',
      'SKIPPED [1] tests/test_a.py:40: needs network',
      'ERROR tests/test_a.py::test_one - RuntimeError: teardown',
    ].join('\r\n')
    expect(Object.fromEntries(parseTestOutput(out, 'pytest'))).toEqual({
      'tests/test_a.py::test_one': 'failed',
      'tests/test_a.py::test_two': 'failed',
      'tests/test_a.py::TestK::test_p[a-b]': 'passed',
      'tests/test_a.py::test_x': 'passed',
    })
  })

  it('reads TAP, directives included, and ignores comments and plans', () => {
    const out = [
      'TAP version 13',
      '1..5',
      'ok 1 - alpha',
      'not ok 2 - beta',
      '# ok 9 - not a result',
      '    ok 1 - nested child',
      'ok 3 - gamma # SKIP no db',
      'not ok 4 - delta # TODO later',
      'ok 5 - hash \\# in name',
      'ok 6 no dash',
    ].join('\n')
    expect(Object.fromEntries(parseTestOutput(out, 'tap'))).toEqual({
      alpha: 'passed',
      beta: 'failed',
      'nested child': 'passed',
      gamma: 'skipped',
      delta: 'passed',
      'hash # in name': 'passed',
      'no dash': 'passed',
    })
  })
})

describe('repo benchmark: trials through the engine', () => {
  it('passes an agent that fixes the bug, and keeps its diff (new files included) as patch.diff', async () => {
    const b = bench()
    const { runner, envs } = editing(async (task, env) => {
      expect(env).toMatchObject({ repoPath: fixture.repoPath, baseCommit: fixture.baseCommit })
      // The worktree is at the base commit, not at HEAD (where the fix already is).
      expect(await readFile(join(env.workdir!, 'calc', 'ops.py'), 'utf8')).not.toBe(OPS_FIXED)
      await writeOps(OPS_FIXED)(task, env)
      await writeFile(join(env.workdir!, 'NOTES.md'), 'fixed clamp\n')
    })
    const run = await trial(b, runner)
    const score = gradeScore(run)
    expect(score).toMatchObject({ score: 1, passed: true, findings: [], error: null })
    expect(score.explanation).toMatch(/FAIL_TO_PASS 1\/1 and PASS_TO_PASS 3\/3/)
    expect(run.record.outcome).toBe('passed')
    const artifact = run.record.result?.artifacts.find((a) => a.name === 'patch.diff')
    expect(artifact).toBeDefined()
    const diff = await readFile(artifact!.path, 'utf8')
    expect(diff).toContain('diff --git a/calc/ops.py b/calc/ops.py')
    expect(diff).toContain('+        return hi')
    expect(diff).toContain('diff --git a/NOTES.md b/NOTES.md')
    // Only the agent's changes: the test patch was applied after the diff was taken.
    expect(diff).not.toContain('test_clamp_high')
    await expectCleanedUp(envs)

    // The diff replays: it applies to a fresh worktree at the base commit.
    const task = await onlyTask(b)
    const env = (await b.prepare!(task)) as RepoEnv
    try {
      const check = spawnSync('git', ['-C', env.workdir, 'apply', '--check', artifact!.path])
      expect(check.status, check.stderr.toString()).toBe(0)
    } finally {
      await b.teardown!(task, env)
    }
  })

  it('passes the oracle (applyGoldPatch)', async () => {
    const run = await trial(
      bench(),
      inlineRunner(async (_ctx, task, env) => {
        await applyGoldPatch(task, env)
        return { finalAnswer: 'gold' }
      }),
    )
    expect(gradeScore(run)).toMatchObject({ score: 1, passed: true })
    expect(run.record.outcome).toBe('passed')
  })

  it('fails an agent whose fix breaks another function on PASS_TO_PASS, naming the test', async () => {
    const { runner, envs } = editing(writeOps(OPS_FIXED_MUL_BROKEN))
    const run = await trial(bench(), runner)
    const score = gradeScore(run)
    expect(score).toMatchObject({ score: 0, passed: false, error: null })
    expect(score.findings).toEqual([
      {
        type: 'pass_to_pass_failed',
        message: expect.stringContaining(FIXTURE_TESTS.mul) as string,
        citations: [],
      },
    ])
    expect(score.explanation).toMatch(/FAIL_TO_PASS 1\/1 and PASS_TO_PASS 2\/3/)
    expect(run.record.outcome).toBe('failed')
    await expectCleanedUp(envs)
  })

  it('fails an agent that changes nothing on FAIL_TO_PASS, and saves no empty patch.diff', async () => {
    const { runner, envs } = editing(async () => undefined)
    const run = await trial(bench(), runner)
    const score = gradeScore(run)
    expect(score).toMatchObject({ score: 0, passed: false })
    expect(score.findings).toEqual([
      {
        type: 'fail_to_pass_failed',
        message: expect.stringContaining(FIXTURE_TESTS.clampHigh) as string,
        citations: [],
      },
    ])
    expect(score.explanation).toMatch(/changed no file/)
    expect(run.record.result?.artifacts).toEqual([])
    expect(run.record.outcome).toBe('failed')
    await expectCleanedUp(envs)
  })

  it('resets the test files the test patch touches before applying it, as SWE-bench does, and says so', async () => {
    let base = ''
    const { runner, envs } = editing(async (task, env) => {
      await writeOps(OPS_FIXED)(task, env)
      const testFile = join(env.workdir!, 'tests', 'test_ops.py')
      base = await readFile(testFile, 'utf8')
      // An edit on the lines the test patch changes, and a test that would pass whatever the fix: both discarded.
      await writeFile(
        testFile,
        base.replace('clamp(4, 0, 10), 4)', 'clamp(5, 0, 10), 5)\n        pass') +
          '\n\nclass Cheat(unittest.TestCase):\n    def test_clamp_high(self):\n        pass\n',
      )
    })
    let graded = ''
    const b = bench()
    const grade = b.grade!.bind(b)
    b.grade = async (view, ctx) => {
      const out = await grade(view, ctx)
      graded = await readFile(join(view.env.workdir!, 'tests', 'test_ops.py'), 'utf8')
      return out
    }
    const run = await trial(b, runner)
    const score = gradeScore(run)
    expect(score).toMatchObject({ score: 1, passed: true })
    expect(score.explanation).toContain(
      'its edits of 1 file the test patch touches (tests/test_ops.py) were reset to base_commit before the tests, as SWE-bench does',
    )
    // The tests that ran are the base file with the test patch: none of the agent's lines.
    expect(graded).not.toContain('Cheat')
    expect(graded).not.toContain('clamp(5, 0, 10), 5)')
    expect(graded).toContain('def test_clamp_high')
    expect(graded.length).toBeGreaterThan(base.length)
    // patch.diff still shows everything the agent did, the test edit included.
    const diff = await readFile(join(tmp, 'artifacts', String(trialNo), 'patch.diff'), 'utf8')
    expect(diff).toContain('class Cheat')
    await expectCleanedUp(envs)
  })

  it('resets a test file the agent deleted, and removes one it made where the test patch adds a file', async () => {
    const own = await buildFixtureRepo(join(tmp, 'fixture-new-file'), { testPatchAddsFile: true })
    const { runner, envs } = editing(async (task, env) => {
      await writeOps(OPS_FIXED)(task, env)
      await rm(join(env.workdir!, 'tests', 'test_ops.py'))
      await mkdir(join(env.workdir!, 'tests', 'extra'))
      await writeFile(join(env.workdir!, 'tests', 'extra', 'test_extra.py'), 'raise SystemExit(3)\n')
    })
    const run = await trial(repoBenchmark({ path: own.instancesPath, scratch_dir: scratch }), runner)
    const score = gradeScore(run)
    expect(score).toMatchObject({ score: 1, passed: true })
    expect(score.explanation).toContain(
      'its edits of 2 files the test patch touches (tests/extra/test_extra.py, tests/test_ops.py)',
    )
    await expectCleanedUp(envs)
  })

  it('scores 0 (test_patch_conflict) when the agent left something the test patch cannot be applied over', async () => {
    const own = await buildFixtureRepo(join(tmp, 'fixture-conflict'), { testPatchAddsFile: true })
    const { runner, envs } = editing(async (task, env) => {
      await writeOps(OPS_FIXED)(task, env)
      // A file named like the folder the test patch adds its files into.
      await writeFile(join(env.workdir!, 'tests', 'extra'), 'not a folder\n')
    })
    const run = await trial(repoBenchmark({ path: own.instancesPath, scratch_dir: scratch }), runner)
    expect(gradeScore(run)).toMatchObject({
      score: 0,
      passed: false,
      findings: [{ type: 'test_patch_conflict', message: expect.stringContaining('tests/extra/') as string }],
    })
    expect(run.record.outcome).toBe('failed')
    await expectCleanedUp(envs)
  })

  it('stops tests that hang at test_timeout_seconds and scores 0 (tests_timed_out)', async () => {
    const { runner, envs } = editing(writeOps(OPS_HANGING))
    const run = await trial(bench({ test_timeout_seconds: 1 }), runner)
    expect(gradeScore(run)).toMatchObject({
      score: 0,
      passed: false,
      error: null,
      findings: [{ type: 'tests_timed_out', message: expect.stringMatching(/within 1 s/) as string }],
    })
    expect(run.record.outcome).toBe('failed')
    await expectCleanedUp(envs)
  })

  it('names tests missing from the output, and makes a broken setup an infra failure', async () => {
    // A test command that runs but reports no such test: the agent is not credited.
    const silent = join(tmp, 'silent.jsonl')
    await writeInstances(silent, [{ ...fixture.instance, repo: fixture.repoPath, test_command: ['true'] }])
    const missing = await trial(bench({ path: silent }), editing(writeOps(OPS_FIXED)).runner)
    const findings = gradeScore(missing).findings
    expect(findings.map((f) => f.type)).toEqual(Array(4).fill('test_missing'))
    expect(findings[0]!.message).toContain(FIXTURE_TESTS.clampHigh)
    expect(missing.record.outcome).toBe('failed')

    // A test command that cannot start, and a test patch that does not apply even to the base commit.
    const broken = join(tmp, 'broken.jsonl')
    await writeInstances(broken, [
      {
        ...fixture.instance,
        repo: fixture.repoPath,
        instance_id: 'no-binary',
        test_command: ['agentevalops-no-such-binary'],
      },
      {
        ...fixture.instance,
        instance_id: 'bad-patch',
        repo: fixture.repoPath,
        test_patch: String(fixture.instance.test_patch).replaceAll('test_ops.py', 'test_gone.py'),
      },
    ])
    for (const [id, message] of [
      ['no-binary', /could not start/],
      ['bad-patch', /does not apply to its base_commit/],
    ] as const) {
      const { runner, envs } = editing(writeOps(OPS_FIXED))
      const run = await trial(repoBenchmark({ path: broken, scratch_dir: scratch, ids: [id] }), runner)
      expect(run.record.outcome, id).toBe('infra_failure')
      expect(gradeScore(run).error, id).toMatch(message)
      await expectCleanedUp(envs)
    }
  })

  it('fails prepare (trial not evaluated) for a missing repository or commit', async () => {
    const file = join(tmp, 'unpreparable.jsonl')
    await writeInstances(file, [
      { ...fixture.instance, instance_id: 'no-repo', repo: 'nowhere' },
      { ...fixture.instance, instance_id: 'no-commit', base_commit: 'f'.repeat(40) },
    ])
    for (const id of ['no-repo', 'no-commit']) {
      const b = repoBenchmark({ path: file, scratch_dir: scratch, ids: [id] })
      const task = await onlyTask(b)
      const error = await failure(() => b.prepare!(task))
      expect(isAgentEvalOpsError(error, 'INFRA_FAILURE'), id).toBe(true)
    }
    expect(await worktreePaths(fixture.repoPath)).toEqual([fixture.repoPath])
  })
})

describe('repo benchmark: git output', () => {
  it('is read whole, or refused as an infra failure rather than cut', async () => {
    const log = await git(fixture.repoPath, ['log', '--format=%H'])
    expect(log.trim().split('\n')).toHaveLength(3)
    const cut = await failure(() => git(fixture.repoPath, ['log', '--format=%H'], { maxOutputBytes: 50 }))
    expect(isAgentEvalOpsError(cut, 'INFRA_FAILURE')).toBe(true)
    expect((cut as Error).message).toMatch(/git log --format=%H printed 123 bytes, more than the 50 read/)
  })
})

describe('repo benchmark: cleanup', () => {
  it('tears down a worktree that is already gone, twice, without throwing', async () => {
    const b = bench()
    const task = await onlyTask(b)
    const env = await b.prepare!(task)
    expect(await worktreePaths(fixture.repoPath)).toContain(env.workdir)
    await rm(env.workdir!, { recursive: true, force: true })
    await b.teardown!(task, env)
    await b.teardown!(task, env)
    await b.teardown!(task, {})
    expect(await worktreePaths(fixture.repoPath)).toEqual([fixture.repoPath])
    // Grading a worktree that is gone, or none, cannot be done: it throws (an infra failure in the engine).
    const ctx = {
      signal: new AbortController().signal,
      timeoutSeconds: 10,
      saveArtifact: () => Promise.reject(new Error('unused')),
      warn: () => undefined,
    }
    const view = { task, result: {} as never, events: [] }
    await expect(Promise.resolve(b.grade!({ ...view, env }, ctx))).rejects.toMatchObject({
      code: 'INFRA_FAILURE',
    })
    await expect(Promise.resolve(b.grade!({ ...view, env: {} }, ctx))).rejects.toMatchObject({
      code: 'INFRA_FAILURE',
    })
  })

  it('prepares and tears down concurrent worktrees of one repository (it.concurrent trials)', async () => {
    const b = bench()
    const task = await onlyTask(b)
    const envs = await Promise.all(Array.from({ length: 6 }, () => Promise.resolve(b.prepare!(task))))
    expect(new Set(envs.map((e) => e.workdir)).size).toBe(6)
    expect((await worktreePaths(fixture.repoPath)).length).toBe(7)
    for (const env of envs) expect(existsSync(join(env.workdir!, 'calc', 'ops.py'))).toBe(true)
    await Promise.all(envs.map((env) => Promise.resolve(b.teardown!(task, env))))
    expect(await worktreePaths(fixture.repoPath)).toEqual([fixture.repoPath])
    for (const env of envs) expect(existsSync(env.workdir!)).toBe(false)
  })

  it('prepares worktrees while others of the same repository are torn down (git prunes beside an add)', async () => {
    const b = bench()
    const task = await onlyTask(b)
    const prepare = () => Promise.resolve(b.prepare!(task))
    let live = await Promise.all(Array.from({ length: 8 }, prepare))
    for (let round = 0; round < 15; round++) {
      const [next] = await Promise.all([
        Promise.all(Array.from({ length: 8 }, prepare)),
        Promise.all(live.map((env) => Promise.resolve(b.teardown!(task, env)))),
      ])
      live = next
    }
    await Promise.all(live.map((env) => Promise.resolve(b.teardown!(task, env))))
    expect(await worktreePaths(fixture.repoPath)).toEqual([fixture.repoPath])
  })

  it('never deletes a folder outside its scratch root, whatever the env says', async () => {
    const b = bench()
    const outside = join(tmp, 'precious')
    await mkdir(outside)
    await b.teardown!(await onlyTask(b), { workdir: outside, repoPath: fixture.repoPath })
    expect(existsSync(outside)).toBe(true)
  })

  it('removes the worktrees a dead process left behind, and makes git forget them', async () => {
    const own = await buildFixtureRepo(join(tmp, 'stale-fixture'))
    const base = join(tmp, 'stale-scratch')
    const dead = spawnSync(process.execPath, ['-e', '']).pid
    expect(dead).toBeGreaterThan(0)
    const leftover = join(base, 'agentevalops-repo', String(dead), 'left-over')
    await mkdir(join(base, 'agentevalops-repo', String(dead)), { recursive: true })
    const added = spawnSync('git', [
      '-C',
      own.repoPath,
      'worktree',
      'add',
      '--detach',
      leftover,
      own.baseCommit,
    ])
    expect(added.status, added.stderr.toString()).toBe(0)
    expect(await worktreePaths(own.repoPath)).toEqual([own.repoPath, leftover])

    const b = repoBenchmark({ path: own.instancesPath, scratch_dir: base })
    const task = await onlyTask(b)
    const env = await b.prepare!(task)
    expect(existsSync(leftover)).toBe(false)
    expect(await worktreePaths(own.repoPath)).toEqual([own.repoPath, env.workdir])
    expect(env.workdir!.startsWith(join(base, 'agentevalops-repo', String(process.pid)))).toBe(true)
    await b.teardown!(task, env)
    expect(await worktreePaths(own.repoPath)).toEqual([own.repoPath])
  })

  it('publishes its finding types', () => {
    expect(REPO_FINDING_TYPES).toEqual([
      'fail_to_pass_failed',
      'pass_to_pass_failed',
      'test_missing',
      'test_patch_conflict',
      'tests_timed_out',
    ])
  })
})
