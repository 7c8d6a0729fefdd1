// How evalBenchmark()'s gate decides the exit code of a real `vitest run`, one scenario per eval file of a throwaway
// project; every run still writes its bundle.
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import pLimit from 'p-limit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  EVAL_IMPORTS,
  bundleDirs,
  createTempProject,
  readScores,
  runVitest,
  tail,
  validateWithCli,
  type TempProject,
  type VitestResult,
} from './helpers.ts'

/** A benchmark whose tasks all expect "yes"; `answers` gives each task's scripted answer, null for no script. */
function gateEval(benchmarkId: string, answers: Record<string, string | null>, gate: string): string {
  const scripts = Object.fromEntries(
    Object.entries(answers)
      .filter((entry): entry is [string, string] => entry[1] !== null)
      .map(([id, answer]) => [
        id,
        {
          steps: [
            { kind: 'model_call', text: 'thinking', tokens: 10 },
            { kind: 'final_answer', answer },
          ],
        },
      ]),
  )
  return `${EVAL_IMPORTS}

const tasks: TaskSpec[] = ${JSON.stringify(Object.keys(answers))}.map((id) =>
  defineTask({ id, benchmark: ${JSON.stringify(benchmarkId)}, prompt: 'Say yes.', expected: 'yes' }),
)
const benchmark: BenchmarkAdapter = {
  id: ${JSON.stringify(benchmarkId)},
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: ${JSON.stringify(benchmarkId)}, version: '1', datasetChecksum: 'e2e' }),
}
evalBenchmark({
  benchmark,
  runner: mockRunner({ scripts: ${JSON.stringify(scripts)} }),
  evaluators: [matchesExpected()],
  gate: ${gate},
})
`
}

const SCENARIOS = {
  'each-pass': gateEval('gate-each-pass', { a: 'yes', b: 'yes', c: 'yes' }, `'each'`),
  'each-fail': gateEval('gate-each-fail', { a: 'yes', wrong: 'no', c: 'yes' }, `'each'`),
  rate: gateEval('gate-rate', { a: 'yes', wrong: 'no', c: 'yes' }, '{ minPassRate: 0.9 }'),
  infra: gateEval('gate-infra', { a: 'yes', 'no-script': null }, '{ minPassRate: 0 }'),
} as const
type Scenario = keyof typeof SCENARIOS

interface JsonReport {
  testResults: {
    assertionResults: { title: string; fullName: string; status: string; failureMessages: string[] }[]
  }[]
}

interface ScenarioRun {
  result: VitestResult
  /** Test title → status and failure text, from Vitest's JSON reporter. */
  cases: Map<string, { status: string; failure: string }>
  bundle: string
}

let project: TempProject
const runs = new Map<Scenario, Promise<ScenarioRun>>()

async function runScenario(name: Scenario): Promise<ScenarioRun> {
  const runsDir = join(project.runsDir, name)
  const jsonFile = join(project.runsDir, `${name}.json`)
  await mkdir(runsDir)
  const result = await runVitest(
    [
      'run',
      '--project',
      'evals',
      `evals/${name}.eval.ts`,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${jsonFile}`,
    ],
    { cwd: project.root, runsDir, timeoutMs: 40_000 },
  )
  const report = JSON.parse(await readFile(jsonFile, 'utf8')) as JsonReport
  const cases = new Map(
    report.testResults
      .flatMap((file) => file.assertionResults)
      .map((c) => [c.title, { status: c.status, failure: c.failureMessages.join('\n') }]),
  )
  const dirs = await bundleDirs(runsDir)
  if (dirs.length !== 1) {
    throw new Error(`${name}: expected one bundle, found ${dirs.length}\n${tail(result.output)}`)
  }
  return { result, cases, bundle: dirs[0]! }
}

beforeAll(async () => {
  project = await createTempProject(
    Object.fromEntries(Object.entries(SCENARIOS).map(([name, source]) => [`evals/${name}.eval.ts`, source])),
  )
  // Two children at a time: the machine has two cores.
  const limit = pLimit(2)
  for (const name of Object.keys(SCENARIOS) as Scenario[]) {
    const run = limit(() => runScenario(name))
    run.catch(() => {}) // awaited by its test; this only keeps an early failure from being "unhandled"
    runs.set(name, run)
  }
})
afterAll(async () => {
  await Promise.allSettled(runs.values())
  await project?.remove()
}, 60_000)

async function scenario(name: Scenario): Promise<ScenarioRun> {
  const run = await runs.get(name)!
  const validated = await validateWithCli(run.bundle)
  expect(validated.code, `${name} bundle: ${validated.stdout}\n${validated.stderr}`).toBe(0)
  return run
}

describe('evalBenchmark gates in a real vitest run', { timeout: 50_000 }, () => {
  it("gate 'each', every trial passes: exit 0", async () => {
    const { result, cases, bundle } = await scenario('each-pass')
    expect(result.code, tail(result.output)).toBe(0)
    expect([...cases.entries()]).toEqual([
      ['a #0', expect.objectContaining({ status: 'passed' })],
      ['b #0', expect.objectContaining({ status: 'passed' })],
      ['c #0', expect.objectContaining({ status: 'passed' })],
    ])
    const scores = await readScores(bundle)
    expect(scores.trials.map((t) => [t.taskId, t.outcome])).toEqual([
      ['a', 'passed'],
      ['b', 'passed'],
      ['c', 'passed'],
    ])
  })

  it("gate 'each', one trial fails: exit 1, and the output names the task and why", async () => {
    const { result, cases, bundle } = await scenario('each-fail')
    expect(result.code, tail(result.output)).toBe(1)
    expect(cases.get('a #0')?.status).toBe('passed')
    expect(cases.get('c #0')?.status).toBe('passed')
    expect(cases.get('wrong #0')?.status).toBe('failed')
    const why = 'matches-expected: 0 — expected "yes", got "no"'
    expect(cases.get('wrong #0')?.failure).toContain('wrong #0: failed (terminatedBy completed)')
    expect(cases.get('wrong #0')?.failure).toContain(why)
    // What a person reads in the terminal says the same.
    expect(result.output).toContain('wrong #0: failed (terminatedBy completed)')
    expect(result.output).toContain(why)
    const scores = await readScores(bundle)
    expect(scores.trials.map((t) => [t.taskId, t.outcome])).toEqual([
      ['a', 'passed'],
      ['c', 'passed'],
      ['wrong', 'failed'],
    ])
  })

  it('gate { minPassRate: 0.9 }, 1 of 3 failing: the trial cases pass, the gate case fails (exit 1)', async () => {
    const { result, cases, bundle } = await scenario('rate')
    expect(result.code, tail(result.output)).toBe(1)
    for (const title of ['a #0', 'wrong #0', 'c #0']) expect(cases.get(title)?.status, title).toBe('passed')
    const gate = cases.get('gate: pass rate ≥ 0.9')
    expect(gate?.status).toBe('failed')
    expect(gate?.failure).toContain('gate-rate: pass rate 0.667 over 3 trials is below 0.9')
    expect(gate?.failure).toContain('wrong #0: failed')
    expect(cases.size).toBe(4)
    expect(result.output).toMatch(/FAIL .*gate: pass rate ≥ 0\.9/)
    const scores = await readScores(bundle)
    expect(scores.summary).toMatchObject({ n: 3, passed: 2 })
  })

  it('an infra failure fails its case even with gate { minPassRate: 0 }', async () => {
    const { result, cases, bundle } = await scenario('infra')
    expect(result.code, tail(result.output)).toBe(1)
    expect(cases.get('a #0')?.status).toBe('passed')
    expect(cases.get('gate: pass rate ≥ 0')?.status).toBe('passed')
    const infra = cases.get('no-script #0')
    expect(infra?.status).toBe('failed')
    expect(infra?.failure).toContain('harness failure')
    expect(infra?.failure).toContain('no-script #0: infra_failure (terminatedBy infra_failure)')
    expect(infra?.failure).toContain('mockRunner has no script for task "no-script"')
    const scores = await readScores(bundle)
    expect(scores.trials.map((t) => [t.taskId, t.outcome])).toEqual([
      ['a', 'passed'],
      ['no-script', 'infra_failure'],
    ])
  })
})
