// A dataset eval as a user writes it, through a real `vitest run`: a task's `expected` is checked even when no grader
// is named, and a benchmark's contains grader and matchesExpected() judge every answer alike in the bundle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  EVAL_IMPORTS,
  bundleDirs,
  createTempProject,
  readScores,
  repoImport,
  runVitest,
  tail,
  type TempProject,
  type VitestResult,
} from './helpers.ts'
import type { ScoresFile } from '../../src/core/index.ts'

const line = (task: object): string => JSON.stringify(task)

const CAPITALS = [
  line({ id: 'fr', prompt: 'Capital of France?', expected: 'Paris' }),
  line({ id: 'jp', prompt: 'Capital of Japan?', expected: 'Tokyo' }),
  line({ id: 'de', prompt: 'Capital of Germany?', expected: 'Berlin' }),
].join('\n')
const PLAIN = [
  line({ id: 'right', prompt: 'What is 6 * 7?', expected: '42' }),
  line({ id: 'wrong', prompt: 'What is 6 * 7?', expected: '42' }),
  line({ id: 'chat', prompt: 'Say hello.' }),
].join('\n')

const answer = (text: string) => ({ steps: [{ kind: 'final_answer', answer: text }] })

const EVAL = `${EVAL_IMPORTS}
import { datasetBenchmark } from ${repoImport('src/benchmarks/index.ts')}

evalBenchmark({
  benchmark: datasetBenchmark({ path: 'data/capitals.jsonl', grader: { type: 'contains' } }),
  runner: mockRunner({ scripts: ${JSON.stringify({
    fr: answer('The capital of France is Paris.'),
    jp: answer('Tokyo, of course'),
    de: answer('Munich'),
  })} }),
  evaluators: [matchesExpected()],
  trials: 2,
  gate: { minPassRate: 0 },
})

evalBenchmark({
  benchmark: datasetBenchmark({ path: 'data/plain.jsonl' }),
  runner: mockRunner({ scripts: ${JSON.stringify({
    right: answer('42'),
    wrong: answer('43'),
    chat: answer('hello'),
  })} }),
  gate: { minPassRate: 0 },
})
`

let project: TempProject
let result: VitestResult
let scores: ScoresFile

beforeAll(async () => {
  project = await createTempProject({
    'data/capitals.jsonl': `${CAPITALS}\n`,
    'data/plain.jsonl': `${PLAIN}\n`,
    'evals/qa.eval.ts': EVAL,
  })
  result = await runVitest(['run', '--project', 'evals'], {
    cwd: project.root,
    runsDir: project.runsDir,
    timeoutMs: 60_000,
  })
  const dirs = await bundleDirs(project.runsDir)
  if (dirs.length !== 1) throw new Error(`expected one bundle, found ${dirs.length}\n${tail(result.output)}`)
  scores = await readScores(dirs[0]!)
}, 90_000)

afterAll(async () => {
  await project?.remove()
})

function passedBy(taskId: string): Record<string, boolean>[] {
  return scores.trials
    .filter((t) => t.taskId === taskId)
    .sort((a, b) => a.trial - b.trial)
    .map((t) => Object.fromEntries(t.scores.map((s) => [s.evaluatorId, s.passed])))
}

describe('a dataset eval through vitest run (issue 17, points 3 and 4)', () => {
  it('runs to exit 0 and writes one bundle with every trial', () => {
    expect(result.code, tail(result.output)).toBe(0)
    expect(scores.trials).toHaveLength(3 * 2 + 3)
  })

  it("gives a contains-graded task the same verdict from the benchmark's grade and from matchesExpected()", () => {
    const both = (passed: boolean) => ({ 'capitals-grade': passed, 'matches-expected': passed })
    expect(passedBy('fr')).toEqual([both(true), both(true)])
    expect(passedBy('jp')).toEqual([both(true), both(true)])
    expect(passedBy('de')).toEqual([both(false), both(false)])
    expect(result.output).not.toContain('two checks of expected disagree')
  })

  it('grades "expected": "42" with no grader named, exactly, and leaves a task with no expected ungraded', () => {
    const trial = (id: string) => scores.trials.find((t) => t.taskId === id)!
    expect(trial('right').scores).toMatchObject([{ evaluatorId: 'plain-grade', passed: true }])
    expect(trial('wrong').scores).toMatchObject([
      { evaluatorId: 'plain-grade', passed: false, explanation: 'expected "42", got "43"' },
    ])
    expect(trial('wrong').outcome).toBe('failed')
    expect(trial('chat').scores).toMatchObject([
      { evaluatorId: 'plain-grade', passed: true, explanation: 'this task has no grader' },
    ])
  })
})
