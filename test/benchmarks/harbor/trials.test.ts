import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  harborBenchmark,
  harborNoopRunner,
  harborOracleRunner,
} from '../../../src/benchmarks/harbor/index.ts'
import {
  AgentEvalOpsError,
  type AgentRunner,
  type EnvHandle,
  type GradeContext,
  type TrialRecord,
} from '../../../src/core/index.ts'
import { liveGroupMembers } from '../../support/process-group.ts'
import { copyFixtures, FIXTURE_TASKS, harborTrial, taskById, taskToml, writeTask } from './helpers.ts'

let tmp: string

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'aeo-harbor-trials-'))
})

afterEach(async () => {
  vi.unstubAllEnvs()
  await rm(tmp, { recursive: true, force: true })
})

const FIXTURE_IDS = ['answer-reward', 'hello-file', 'upper-case-seed'] as const

function gradeScore(record: TrialRecord) {
  const score = record.scores.find((s) => s.evaluatorId === 'harbor-grade')
  if (!score) throw new Error(`no harbor-grade score in ${JSON.stringify(record.scores)}`)
  return score
}

/** A runner that runs `act(workdir)` in the workspace and answers "done". */
function acting(act: (workdir: string, env: EnvHandle) => Promise<void>): AgentRunner {
  return {
    runnerInfo: () => ({ name: 'acting', kind: 'test', config: {} }),
    async run(_task, env) {
      await act(env.workdir!, env)
      return { finalAnswer: 'done', success: true }
    },
  }
}

/** Waits (at most ~2 s) for a process group to die: SIGKILL is delivered asynchronously. */
async function groupGone(pgid: number): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    if ((await liveGroupMembers(pgid)).length === 0) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return false
}

/** A context for calling grade() directly, outside the engine. */
function gradeContext(warnings: string[] = []): GradeContext {
  return {
    signal: new AbortController().signal,
    timeoutSeconds: 60,
    saveArtifact: async (name) => ({ name, path: name }),
    warn: (m) => warnings.push(m),
  }
}

describe('harbor trials through the engine', () => {
  it.each(FIXTURE_IDS)('the oracle passes %s', async (id) => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    const warnings: string[] = []
    const { record, events } = await harborTrial(
      bench,
      await taskById(bench, id),
      harborOracleRunner(),
      tmp,
      {
        onWarning: (m) => warnings.push(m),
      },
    )
    expect(record.outcome).toBe('passed')
    expect(record.runner.name).toBe('harbor-oracle')
    expect(record.result).toMatchObject({ success: true, finalAnswer: 'solve.sh exited with code 0' })
    expect(gradeScore(record)).toMatchObject({ score: 1, passed: true, kind: 'deterministic', error: null })
    expect(events.map((e) => e.kind)).toEqual([
      'agent.tool_call',
      'agent.tool_result',
      'agent.final_answer',
      'agent.terminal',
      'evaluator.score',
    ])
    // The test output is kept as an artifact of the trial.
    const artifact = record.result!.artifacts.find((a) => a.name === 'harbor/test-output.txt')
    expect(artifact).toBeDefined()
    expect(await readFile(join(tmp, id, 'harbor', 'test-output.txt'), 'utf8')).toContain(
      '# outcome: exited, exit code: 0',
    )
    expect(warnings).toEqual([])
  })

  it.each(FIXTURE_IDS)('the no-op agent fails %s', async (id) => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    const { record } = await harborTrial(bench, await taskById(bench, id), harborNoopRunner(), tmp)
    expect(record.outcome).toBe('failed')
    expect(record.runner.name).toBe('noop')
    expect(gradeScore(record)).toMatchObject({ score: 0, passed: false, error: null })
  })

  it('gives partial credit from the reward file, and says why it failed', async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    const wrong = acting((workdir) => writeFile(join(workdir, 'answer.txt'), '41\n'))
    const { record } = await harborTrial(bench, await taskById(bench, 'answer-reward'), wrong, tmp)
    const score = gradeScore(record)
    expect(record.outcome).toBe('failed')
    expect(score).toMatchObject({ score: 0.5, passed: false })
    expect(score.explanation).toContain('reward 0.5')
    expect(score.explanation).toContain('a number, but not the right one')
    expect(score.findings.map((f) => f.type)).toEqual(['reward_below_one'])
  })

  it('explains a failing test with the end of its output', async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    const wrong = acting((workdir) => writeFile(join(workdir, 'hello.txt'), 'Goodbye\n'))
    const { record } = await harborTrial(bench, await taskById(bench, 'hello-file'), wrong, tmp)
    const score = gradeScore(record)
    expect(score.explanation).toContain('test.sh exited with code 1')
    expect(score.explanation).toContain('hello.txt holds: Goodbye')
    expect(score.findings[0]).toMatchObject({ type: 'tests_failed' })
  })

  it('keeps tests, solution and expected output out of the agent’s sight, and removes everything at teardown', async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    let seen: string[] = []
    let around: string[] = []
    let workdir = ''
    const peeking = acting(async (dir) => {
      workdir = dir
      seen = (await readdir(dir, { recursive: true })).sort()
      around = await readdir(join(dir, '..'))
    })
    const { record } = await harborTrial(bench, await taskById(bench, 'upper-case-seed'), peeking, tmp)
    expect(seen).toEqual(['data', 'data/words.txt'])
    expect(around).toEqual(['app'])
    expect(record.outcome).toBe('failed')
    expect(existsSync(workdir)).toBe(false)
    expect(existsSync(join(workdir, '..'))).toBe(false)
  })

  it('ignores a reward and tests the agent planted where grading puts its own', async () => {
    // The tests write reward.json; a planted reward.txt, which takes precedence, would turn a 0 into a pass.
    const root = join(tmp, 'ds')
    await writeTask(root, 'json-reward', {
      'instruction.md': 'Create hello.txt.',
      'task.toml': taskToml(),
      'tests/test.sh':
        'if [ -f hello.txt ]; then v=1; else v=0; fi\necho "{\\"reward\\": $v}" > "$LOGS_DIR/verifier/reward.json"\n',
    })
    const bench = harborBenchmark({ path: root })
    const cheat = acting(async (workdir) => {
      await mkdir(join(workdir, '..', 'logs', 'verifier'), { recursive: true })
      await writeFile(join(workdir, '..', 'logs', 'verifier', 'reward.txt'), '1\n')
      await mkdir(join(workdir, '..', 'tests'), { recursive: true })
      await writeFile(join(workdir, '..', 'tests', 'helper.sh'), 'exit 0\n')
    })
    const { record } = await harborTrial(bench, await taskById(bench, 'json-reward'), cheat, tmp)
    expect(gradeScore(record)).toMatchObject({ score: 0, passed: false })
    expect(gradeScore(record).explanation).toContain('reward 0')
    const honest = acting((workdir) => writeFile(join(workdir, 'hello.txt'), 'hi\n'))
    const { record: passed } = await harborTrial(bench, await taskById(bench, 'json-reward'), honest, tmp)
    expect(gradeScore(passed)).toMatchObject({ score: 1, passed: true })
  })

  it('fails, not as an infra failure, an agent that removed its own workspace', async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    const vandal = acting((workdir) => rm(workdir, { recursive: true }))
    const { record } = await harborTrial(bench, await taskById(bench, 'hello-file'), vandal, tmp)
    expect(record.outcome).toBe('failed')
    expect(gradeScore(record)).toMatchObject({ score: 0, passed: false, error: null })
  })

  it('scores 0 with tests_timed_out when the tests hang, and leaves no process behind', async () => {
    const root = join(tmp, 'ds')
    const pidFile = join(tmp, 'test.pid')
    await writeTask(root, 'hangs', {
      'instruction.md': 'Nothing to do.',
      'task.toml': taskToml(0.5),
      'tests/test.sh': `echo $$ > '${pidFile}'\nsleep 1000 &\nsleep 1000\n`,
    })
    const bench = harborBenchmark({ path: root })
    const { record } = await harborTrial(bench, await taskById(bench, 'hangs'), harborNoopRunner(), tmp)
    expect(record.outcome).toBe('failed')
    const score = gradeScore(record)
    expect(score).toMatchObject({ score: 0, passed: false, error: null })
    expect(score.findings.map((f) => f.type)).toEqual(['tests_timed_out'])
    const pid = Number(await readFile(pidFile, 'utf8'))
    expect(pid).toBeGreaterThan(0)
    expect(await groupGone(pid)).toBe(true)
  })

  it('is an infra failure, not the agent’s, when the grade timeout cuts the tests short', async () => {
    const root = join(tmp, 'ds')
    await writeTask(root, 'slow', {
      'instruction.md': 'Nothing to do.',
      'task.toml': taskToml(30),
      'tests/test.sh': 'sleep 1000\n',
    })
    const bench = harborBenchmark({ path: root, grade_timeout_seconds: 1 })
    const warnings: string[] = []
    const { record } = await harborTrial(bench, await taskById(bench, 'slow'), harborNoopRunner(), tmp, {
      onWarning: (m) => warnings.push(m),
    })
    expect(record.outcome).toBe('infra_failure')
    expect(gradeScore(record).error).toContain('grade_timeout_seconds')
    expect(warnings.join('\n')).toContain('is cut to 0.5 s')
  })

  it('warns when the tests use Harbor’s container paths', async () => {
    const root = join(tmp, 'ds')
    await writeTask(root, 'container-paths', {
      'instruction.md': 'Nothing to do.',
      'task.toml': taskToml(),
      'tests/test.sh':
        '# writes /logs/verifier/reward.txt in Harbor\necho 1 > /logs/verifier/reward.txt 2>/dev/null\nexit 0\n',
    })
    const bench = harborBenchmark({ path: root })
    const warnings: string[] = []
    await harborTrial(bench, await taskById(bench, 'container-paths'), harborNoopRunner(), tmp, {
      onWarning: (m) => warnings.push(m),
    })
    expect(warnings.join('\n')).toContain('container path(s) /logs/verifier')
  })

  it('the oracle fails a task without a solution, as the agent’s error', async () => {
    const root = join(tmp, 'ds')
    await writeTask(root, 'unsolved', {
      'instruction.md': 'Do it.',
      'task.toml': taskToml(),
      'tests/test.sh': 'exit 1\n',
    })
    const bench = harborBenchmark({ path: root })
    const { record } = await harborTrial(bench, await taskById(bench, 'unsolved'), harborOracleRunner(), tmp)
    expect(record.result).toMatchObject({
      terminatedBy: 'agent_error',
      error: 'task unsolved has no solution/solve.sh',
    })
    expect(record.outcome).not.toBe('passed')
  })

  it('the oracle reports a failing solve.sh as an unsuccessful run', async () => {
    const root = await copyFixtures(tmp)
    await writeFile(join(root, 'hello-file', 'solution', 'solve.sh'), 'echo broken >&2\nexit 3\n')
    const bench = harborBenchmark({ path: root })
    const { record, events } = await harborTrial(
      bench,
      await taskById(bench, 'hello-file'),
      harborOracleRunner(),
      tmp,
    )
    expect(record.result).toMatchObject({ success: false, finalAnswer: 'solve.sh exited with code 3' })
    expect(record.outcome).toBe('failed')
    const result = events.find((e) => e.kind === 'agent.tool_result')
    expect(result?.payload).toMatchObject({ isError: true, result: { exitCode: 3, output: 'broken\n' } })
  })
})

describe('harbor grade: when grading cannot run', () => {
  it('throws INFRA_FAILURE when bash cannot be started', async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    const task = await taskById(bench, 'hello-file')
    const env = await bench.prepare!(task)
    try {
      vi.stubEnv('PATH', join(tmp, 'no-bin'))
      const view = { task, env, events: [], result: null as never }
      await expect(Promise.resolve(bench.grade!(view, gradeContext()))).rejects.toMatchObject({
        code: 'INFRA_FAILURE',
        message: expect.stringContaining('could not run the tests with bash') as unknown,
      })
    } finally {
      vi.unstubAllEnvs()
      await bench.teardown!(task, env)
    }
  })

  it('throws INFRA_FAILURE when the tests changed, or went away, after the task was listed', async () => {
    const root = await copyFixtures(tmp)
    const bench = harborBenchmark({ path: root })
    const task = await taskById(bench, 'hello-file')
    const env = await bench.prepare!(task)
    const view = { task, env, events: [], result: null as never }
    try {
      await writeFile(join(root, 'hello-file', 'tests', 'test.sh'), 'exit 0\n')
      const changed = bench.grade!(view, gradeContext())
      await expect(Promise.resolve(changed)).rejects.toMatchObject({ code: 'INFRA_FAILURE' })
      await expect(Promise.resolve(changed)).rejects.toThrow(/changed since the task was listed/)
      await rm(join(root, 'hello-file', 'tests'), { recursive: true })
      await expect(Promise.resolve(bench.grade!(view, gradeContext()))).rejects.toThrow(AgentEvalOpsError)
    } finally {
      await bench.teardown!(task, env)
    }
  })

  it('throws INFRA_FAILURE for an environment it did not prepare', async () => {
    const bench = harborBenchmark({ path: FIXTURE_TASKS })
    const task = await taskById(bench, 'hello-file')
    const view = { task, env: { workdir: tmp }, events: [], result: null as never }
    await expect(Promise.resolve(bench.grade!(view, gradeContext()))).rejects.toMatchObject({
      code: 'INFRA_FAILURE',
    })
  })
})
