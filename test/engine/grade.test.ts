import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { GradeContext, TrialView } from '../../src/core/index.ts'
import { folderArtifacts, runTrial, trialKeys } from '../../src/engine/index.ts'
import { baseOptions, benchmark, fixedEvaluator, inlineRunner, task } from './helpers.ts'

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'aeo-grade-'))
  dirs.push(dir)
  return dir
}

/** A benchmark whose grading reads the answer the agent wrote into its workspace. */
function workspaceBenchmark(workdir: string) {
  const order: string[] = []
  return {
    order,
    prepare: async () => {
      order.push('prepare')
      await writeFile(join(workdir, 'seed.txt'), 'seed')
      return { workdir }
    },
    grade: async (view: TrialView, ctx: GradeContext) => {
      order.push('grade')
      const answer = await readFile(join(view.env.workdir!, 'answer.txt'), 'utf8')
      await ctx.saveArtifact('patch.diff', `+${answer}\n`)
      const passed = answer === '2'
      return { score: passed ? 1 : 0, passed, explanation: `answer.txt holds ${answer}` }
    },
    teardown: async () => {
      order.push('teardown')
      await rm(join(workdir, 'answer.txt'), { force: true })
    },
  }
}

const writesAnswer = (answer: string) =>
  inlineRunner(async (_ctx, _task, env) => {
    await writeFile(join(env.workdir!, 'answer.txt'), answer)
    return { finalAnswer: answer }
  })

describe('a benchmark’s grade()', () => {
  it('runs after the agent and before teardown, as a deterministic <benchmark>-grade score first in line', async () => {
    const workdir = await tempDir()
    const bench = workspaceBenchmark(workdir)
    const { record } = await runTrial(
      baseOptions({ ...bench, runner: writesAnswer('2'), evaluators: [fixedEvaluator(true)] }),
    )
    expect(bench.order).toEqual(['prepare', 'grade', 'teardown'])
    expect(record.outcome).toBe('passed')
    expect(record.scores.map((s) => [s.evaluatorId, s.kind])).toEqual([
      ['toy-grade', 'deterministic'],
      ['exact', 'deterministic'],
    ])
    expect(record.scores[0]).toMatchObject({
      score: 1,
      passed: true,
      explanation: 'answer.txt holds 2',
      error: null,
    })
  })

  it('fails the trial (an agent failure, not infra) when the grade does not pass', async () => {
    const bench = workspaceBenchmark(await tempDir())
    const { record } = await runTrial(baseOptions({ ...bench, runner: writesAnswer('3') }))
    expect(record.outcome).toBe('failed')
    expect(record.scores[0]).toMatchObject({ evaluatorId: 'toy-grade', passed: false, error: null })
  })

  it('keeps what the grader saved as artifacts of the trial, in the result', async () => {
    const workdir = await tempDir()
    const store = await tempDir()
    const { record, result } = await runTrial(
      baseOptions({
        ...workspaceBenchmark(workdir),
        runner: writesAnswer('2'),
        artifacts: folderArtifacts(join(store, 'artifacts/toy/t0'), 'artifacts/toy/t0'),
      }),
    )
    expect(result?.artifacts).toEqual([{ name: 'patch.diff', path: 'artifacts/toy/t0/patch.diff' }])
    expect(record.result?.artifacts).toEqual(result?.artifacts)
    expect(readFileSync(join(store, 'artifacts/toy/t0/patch.diff'), 'utf8')).toBe('+2\n')
  })

  it('defaults the artifacts of a direct runTrial call to a folder under the temp folder', async () => {
    const { result } = await runTrial(
      baseOptions({ ...workspaceBenchmark(await tempDir()), runner: writesAnswer('2'), runId: 'grade-temp' }),
    )
    const path = result?.artifacts[0]?.path
    expect(path).toContain(join(tmpdir(), 'agentevalops-artifacts'))
    expect(existsSync(path!)).toBe(true)
    await rm(join(tmpdir(), 'agentevalops-artifacts', 'grade-temp'), { recursive: true, force: true })
  })

  it('makes a grader that throws an infra failure, never an agent failure', async () => {
    const { record } = await runTrial(
      baseOptions({
        grade: () => {
          throw new Error('python3: not found')
        },
      }),
    )
    expect(record.outcome).toBe('infra_failure')
    expect(record.scores[0]).toMatchObject({ evaluatorId: 'toy-grade', passed: false })
    expect(record.scores[0]?.error).toContain('python3: not found')
    expect(record.warnings.join('\n')).toContain('toy-grade')
  })

  it('gives up on a grader that overruns its time limit (infra failure) and aborts its signal', async () => {
    let aborted: unknown
    const { record } = await runTrial(
      baseOptions({
        gradeTimeoutSeconds: 0.2,
        grade: (_view, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              aborted = ctx.signal.reason
              // A grader that ignores its signal still cannot hold the trial.
              setTimeout(() => resolve({ score: 1, passed: true, explanation: 'late' }), 50)
            })
          }),
      }),
    )
    expect(record.outcome).toBe('infra_failure')
    expect(record.scores[0]?.error).toMatch(/did not finish within 0\.2 s/)
    expect(aborted).toMatchObject({ code: 'GRADE_TIMEOUT' })
  })

  it('is not run for a trial the run cancelled', async () => {
    let graded = false
    const cancel = new AbortController()
    const { record } = await runTrial(
      baseOptions({
        signal: cancel.signal,
        runner: inlineRunner(async (ctx) => {
          cancel.abort()
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
          return { finalAnswer: null }
        }),
        grade: () => {
          graded = true
          return { score: 1, passed: true, explanation: '' }
        },
      }),
    )
    expect(record.outcome).toBe('interrupted')
    expect(graded).toBe(false)
  })

  it('puts the grader in the score key: a benchmark with a new grade version re-scores on resume', () => {
    const base = { benchmark, task, trial: 0, runner: { name: 'r', kind: 'k', config: {} }, limits: {} }
    const without = trialKeys(base)
    const v1 = trialKeys({ ...base, grader: '1' })
    const v2 = trialKeys({ ...base, grader: '2' })
    expect(new Set([without.score, v1.score, v2.score]).size).toBe(3)
    expect(new Set([without.agent, v1.agent, v2.agent]).size).toBe(1)
  })
})
