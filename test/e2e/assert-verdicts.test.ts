// An `assert` callback's verdict is part of its trial: a failed matcher, a throwing callback and an `expect.soft`
// failure each fail the trial in scores.json, in the console summary, in JUnit and in Vitest's exit code alike,
// through a real `vitest run` of a throwaway project.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScoredTrial, ScoresFile } from '../../src/core/index.ts'
import {
  EVAL_IMPORTS,
  bundleDirs,
  createTempProject,
  readBundleEvents,
  readScores,
  runVitest,
  tail,
  validateWithCli,
  type TempProject,
  type VitestResult,
} from './helpers.ts'

/** A benchmark whose agent answers "yes" after one get_weather call with the task's `city` (its tool call is step 1). */
function weatherBenchmark(id: string, cities: Record<string, string>): string {
  const scripts = Object.fromEntries(
    Object.entries(cities).map(([task, city]) => [
      task,
      {
        steps: [
          { kind: 'model_call', text: 'checking the weather', tokens: 5 },
          { kind: 'tool_call', tool: 'get_weather', args: { city } },
          { kind: 'tool_result', tool: 'get_weather', result: { sky: 'clear' } },
          { kind: 'final_answer', answer: 'yes' },
        ],
      },
    ]),
  )
  return `{
  benchmark: {
    id: ${JSON.stringify(id)},
    version: '1',
    listTasks: () =>
      ${JSON.stringify(Object.keys(cities))}.map((task) =>
        defineTask({ id: task, benchmark: ${JSON.stringify(id)}, prompt: 'Weather?', expected: 'yes' }),
      ),
    info: () => ({ id: ${JSON.stringify(id)}, version: '1', datasetChecksum: 'e2e' }),
  } satisfies BenchmarkAdapter,
  runner: mockRunner({ scripts: ${JSON.stringify(scripts)} }),
  evaluators: [matchesExpected()],
}`
}

const EVAL_FILE = `${EVAL_IMPORTS}

evalBenchmark({
  ...${weatherBenchmark('assert-matcher', { london: 'London', paris: 'Paris' })},
  assert: ({ events }, expect) => expect(events).toCallTool('get_weather', { city: 'London' }),
})
evalBenchmark({
  ...${weatherBenchmark('assert-throws', { boom: 'London' })},
  assert: ({ record }) => {
    ;(record as unknown as { missing: { field: string } }).missing.field
  },
})
evalBenchmark({
  ...${weatherBenchmark('assert-soft', { soft: 'Paris' })},
  assert: ({ events }, expect) => {
    expect.soft(events).toCallTool('get_weather', { city: 'London' })
    expect.soft(events.length, 'event count').toBe(0)
  },
})
evalBenchmark({
  ...${weatherBenchmark('assert-rate', { london: 'London', paris: 'Paris' })},
  gate: { minPassRate: 0.75 },
  assert: ({ events }, expect) => expect(events).toCallTool('get_weather', { city: 'London' }),
})
`

interface JsonReport {
  testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[]
}

let project: TempProject
let result: VitestResult
let scores: ScoresFile
let bundle: string
/** Full test name → status and failure text, from Vitest's JSON reporter. */
let cases: Map<string, { status: string; failure: string }>
let junit: string

beforeAll(async () => {
  project = await createTempProject({ 'evals/assert.eval.ts': EVAL_FILE })
  const jsonFile = join(project.runsDir, 'vitest.json')
  const junitFile = join(project.runsDir, 'junit.xml')
  result = await runVitest(
    [
      'run',
      '--project',
      'evals',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${jsonFile}`,
      '--reporter=junit',
      `--outputFile.junit=${junitFile}`,
    ],
    { cwd: project.root, runsDir: project.runsDir, timeoutMs: 40_000 },
  )
  const report = JSON.parse(await readFile(jsonFile, 'utf8')) as JsonReport
  cases = new Map(
    report.testResults
      .flatMap((file) => file.assertionResults)
      .map((c) => [c.fullName, { status: c.status, failure: c.failureMessages.join('\n') }]),
  )
  junit = await readFile(junitFile, 'utf8')
  const dirs = await bundleDirs(project.runsDir)
  if (dirs.length !== 1) throw new Error(`expected one bundle, found ${dirs.length}\n${tail(result.output)}`)
  bundle = dirs[0]!
  scores = await readScores(bundle)
}, 50_000)
afterAll(async () => {
  await project?.remove()
})

function trial(benchmark: string, taskId: string): ScoredTrial {
  const found = scores.trials.find((t) => t.benchmark.id === benchmark && t.taskId === taskId)
  if (!found) throw new Error(`no trial ${benchmark}/${taskId} in scores.json\n${tail(result.output)}`)
  return found
}

function assertScore(t: ScoredTrial) {
  const score = t.scores.find((s) => s.evaluatorId === 'assert')
  if (!score) throw new Error(`${t.taskId}: no assert score in ${JSON.stringify(t.scores)}`)
  return score
}

describe('assert verdicts in the bundle', { timeout: 50_000 }, () => {
  it('a failed trace matcher fails the trial in scores.json, with its message and the step it cites', async () => {
    expect(result.code, tail(result.output)).toBe(1)
    const paris = trial('assert-matcher', 'paris')
    expect(paris).toMatchObject({ outcome: 'failed', passed: false })
    const score = assertScore(paris)
    expect(score).toMatchObject({ kind: 'deterministic', score: 0, passed: false })
    // The step the matcher names is the trial's get_weather call.
    const events = (await readBundleEvents(bundle)).filter(
      (e) => e.benchmark === 'assert-matcher' && e.taskId === 'paris',
    )
    const call = events.find((e) => e.kind === 'agent.tool_call')!
    expect(score.citations).toEqual([call.step])
    expect(score.findings.map((f) => [f.type, f.citations])).toEqual([['assertion', [call.step]]])
    expect(score.findings[0]!.message).toContain('"get_weather"')
    // Vitest's own message is the matcher's, unchanged.
    const vitestCase = cases.get('assert-matcher paris #0')
    expect(vitestCase?.status).toBe('failed')
    expect(vitestCase?.failure).toContain(score.findings[0]!.message)
    // The trial whose matcher held passes, with an assert score of 1.
    const london = trial('assert-matcher', 'london')
    expect(london).toMatchObject({ outcome: 'passed', passed: true })
    expect(assertScore(london)).toMatchObject({ score: 1, passed: true, findings: [] })
    expect(cases.get('assert-matcher london #0')?.status).toBe('passed')
  })

  it('a throwing assert fails its trial, with the error type and message', () => {
    const boom = trial('assert-throws', 'boom')
    expect(boom).toMatchObject({ outcome: 'failed', passed: false })
    const findings = assertScore(boom).findings
    expect(findings.map((f) => [f.type, f.citations])).toEqual([['threw', []]])
    expect(findings[0]!.message).toMatch(/^TypeError: .*field/)
    expect(cases.get('assert-throws boom #0')?.status).toBe('failed')
  })

  it('every expect.soft failure is in the record', () => {
    const soft = trial('assert-soft', 'soft')
    expect(soft).toMatchObject({ outcome: 'failed', passed: false })
    const findings = assertScore(soft).findings
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringContaining('get_weather'),
      expect.stringContaining('event count'),
    ])
    expect(findings[0]!.citations).toHaveLength(1)
    expect(cases.get('assert-soft soft #0')?.status).toBe('failed')
  })

  it('an aggregate gate counts the failed assertion in its pass rate', () => {
    expect(trial('assert-rate', 'paris')).toMatchObject({ outcome: 'failed', passed: false })
    const gate = [...cases].find(([name]) => name.startsWith('assert-rate gate'))
    expect(gate?.[1].status).toBe('failed')
    expect(gate?.[1].failure).toContain('pass rate 0.500 over 2 trials')
  })

  it('the console summary, JUnit and the bundle agree on the failed trials', async () => {
    const failed = scores.trials.filter((t) => !t.passed).map((t) => `${t.benchmark.id}/${t.taskId}`)
    expect(failed.sort()).toEqual([
      'assert-matcher/paris',
      'assert-rate/paris',
      'assert-soft/soft',
      'assert-throws/boom',
    ])
    // Each benchmark's scripted runner has scripts of its own, so several targets ran and no rate is pooled.
    expect(result.stdout).toContain(`agentevalops: 2/6 trials passed · bundle `)
    expect(result.stdout).toMatch(/assert-matcher\/paris #0\s+failed/)
    expect(junit).toMatch(
      /<testcase [^>]*name="assert-matcher &gt; paris #0"[\s\S]*?name="agentevalops" value="failed · /,
    )
    // report.md lists the failed assertion among the trial's findings.
    const report = await readFile(join(bundle, 'report.md'), 'utf8')
    const parisRows = report.split('\n').filter((line) => /\|\s*paris\s*\|/.test(line))
    expect(
      parisRows.some((line) => /\|\s*assert\s*\|.*FAIL.*assertion: /.test(line)),
      report,
    ).toBe(true)
    const validated = await validateWithCli(bundle)
    expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)
  })
})
