// What CI gets from a real `vitest run` of an eval project: each trial case's outcome, scores and policy verdicts as
// one JUnit property (equal to the bundle's scores.json), the baseline gate's verdict likewise, the live progress
// lines, and the github-actions reporter's `::` workflow commands, both when Vitest adds that reporter itself
// (GITHUB_ACTIONS=true, no --reporter) and when the workflow names it beside junit.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScoresFile } from '../../src/core/index.ts'
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

const EVAL = `${EVAL_IMPORTS}
import { predicate } from ${repoImport('src/evaluators/index.ts')}
import { costCeiling, toolAccess } from ${repoImport('src/policy/index.ts')}

// The baseline run (CI_OUTPUT_BASELINE set) answers beta right, so the run compared with it has beta regressed.
const answers: Record<string, string> = {
  alpha: 'yes',
  beta: process.env.CI_OUTPUT_BASELINE ? 'yes' : 'yes!',
  gamma: 'no',
}
const tasks: TaskSpec[] = Object.keys(answers).map((id) =>
  defineTask({ id, benchmark: 'ci-output', prompt: 'Say yes.', expected: 'yes' }),
)
const benchmark: BenchmarkAdapter = {
  id: 'ci-output',
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: 'ci-output', version: '1', datasetChecksum: 'e2e' }),
}
const scripts = Object.fromEntries(
  Object.entries(answers).map(([id, answer]) => [
    id,
    { steps: [{ kind: 'model_call', text: 'thinking', tokens: 10, costUsd: 0.001 }, { kind: 'final_answer', answer }] },
  ]),
)
evalBenchmark({
  benchmark,
  runner: mockRunner({ scripts }),
  evaluators: [
    matchesExpected(),
    // A score that is not 0 or 1, so the property's rounding is put to the test.
    predicate({ id: 'brevity', test: (answer) => ({ passed: true, score: 1 / (answer ?? '').length }) }),
  ],
  policy: [costCeiling({ maxUsd: 1 }), toolAccess({ allow: [] })],
  trials: 2,
})
`

/** `<testcase name>` → its properties (name → value) and whether it failed, from a JUnit report. */
function junitCases(xml: string): Map<string, { properties: Map<string, string>; failed: boolean }> {
  const unescape = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&')
  const cases = new Map<string, { properties: Map<string, string>; failed: boolean }>()
  for (const [, name, body] of xml.matchAll(
    /<testcase [^>]*?\sname="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g,
  )) {
    const properties = new Map<string, string>()
    for (const [, key, value] of body!.matchAll(/<property name="([^"]*)" value="([^"]*)">/g)) {
      properties.set(unescape(key!), unescape(value!))
    }
    cases.set(unescape(name!), { properties, failed: body!.includes('<failure') })
  }
  return cases
}

interface Run {
  result: VitestResult
  scores: ScoresFile
  stepSummary: string
}

let project: TempProject
let auto: Run
let workflow: Run & { junit: string }

async function oneBundle(runsDir: string, result: VitestResult): Promise<string> {
  const dirs = await bundleDirs(runsDir)
  if (dirs.length !== 1)
    throw new Error(`expected one bundle in ${runsDir}, found ${dirs.length}\n${tail(result.output)}`)
  return dirs[0]!
}

beforeAll(async () => {
  project = await createTempProject({ 'evals/ci.eval.ts': EVAL })
  // 1. No --reporter inside GitHub Actions: Vitest adds its github-actions reporter, ours are pushed beside it.
  const autoRuns = join(project.runsDir, 'auto')
  const autoSummary = join(project.runsDir, 'auto-step-summary.md')
  const autoResult = await runVitest(['run', '--project', 'evals'], {
    cwd: project.root,
    runsDir: autoRuns,
    env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: autoSummary, CI_OUTPUT_BASELINE: '1' },
    timeoutMs: 60_000,
  })
  const autoBundle = await oneBundle(autoRuns, autoResult)
  auto = {
    result: autoResult,
    scores: await readScores(autoBundle),
    stepSummary: await readFile(autoSummary, 'utf8').catch(() => ''),
  }

  // 2. The example workflow's command line, against the first run as its baseline.
  const runsDir = join(project.runsDir, 'workflow')
  const junit = join(project.runsDir, 'reports', 'junit.xml')
  const stepSummary = join(project.runsDir, 'workflow-step-summary.md')
  const result = await runVitest(
    [
      'run',
      '--project',
      'evals',
      '--reporter=default',
      '--reporter=github-actions',
      '--reporter=junit',
      `--outputFile.junit=${junit}`,
    ],
    {
      cwd: project.root,
      runsDir,
      env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary, AGENTEVALOPS_BASELINE: autoBundle },
      timeoutMs: 60_000,
    },
  )
  workflow = {
    result,
    scores: await readScores(await oneBundle(runsDir, result)),
    stepSummary: await readFile(stepSummary, 'utf8').catch(() => ''),
    junit: await readFile(junit, 'utf8'),
  }
}, 150_000)

afterAll(async () => {
  await project?.remove()
}, 30_000)

describe('CI output of a real eval run', { timeout: 30_000 }, () => {
  it('gives every trial case one JUnit property with its outcome, scores and policy verdicts, as in scores.json', () => {
    const cases = junitCases(workflow.junit)
    const trials = workflow.scores.trials
    expect(trials).toHaveLength(6)
    for (const t of trials) {
      // JUnit names a case by its describe path: the benchmark's describe, then the trial case.
      const name = `ci-output > ${t.taskId} #${t.trial}`
      const junitCase = cases.get(name)
      expect(junitCase, `${name} in junit.xml`).toBeDefined()
      const { properties, failed } = junitCase!
      // One annotation per trial (each is a round trip from the worker), so one property.
      expect([...properties.keys()], name).toEqual(['agentevalops'])
      const [outcome, mean, terminatedBy, ...items] = properties.get('agentevalops')!.split(' · ')
      expect(outcome, name).toBe(t.outcome)
      const scoreMean = t.scores.reduce((sum, s) => sum + s.score, 0) / t.scores.length
      expect(mean, name).toBe(`score ${scoreMean.toFixed(2)}`)
      expect(terminatedBy, name).toBe(t.result?.terminatedBy)
      expect(items, name).toEqual([
        ...t.scores.map((s) => `${s.evaluatorId} ${s.score.toFixed(3)} ${s.passed ? 'pass' : 'fail'}`),
        ...t.verdicts.map((v) => `policy ${v.checkerId} ${v.verdict}`),
      ])
      // Under gate 'each' a trial that did not pass fails its case, and keeps its property.
      expect(failed, name).toBe(!t.passed)
    }
    // The scores the fixture was made to give: brevity is 1/length of the answer, matches-expected 1 or 0.
    expect(cases.get('ci-output > beta #1')!.properties.get('agentevalops')).toBe(
      'failed · score 0.13 · completed · matches-expected 0.000 fail · brevity 0.250 pass · policy cost-ceiling PASS · policy tool-access PASS',
    )
    expect(cases.get('ci-output > alpha #0')!.properties.get('agentevalops')).toBe(
      'passed · score 0.67 · completed · matches-expected 1.000 pass · brevity 0.333 pass · policy cost-ceiling PASS · policy tool-access PASS',
    )
  })

  it("gives the baseline gate case the comparison's verdict", () => {
    const comparison = workflow.scores.summary.comparison
    expect(comparison, tail(workflow.result.output)).toBeDefined()
    const gate = [...junitCases(workflow.junit)].find(([name]) =>
      name.startsWith('ci-output > baseline: no regression vs '),
    )
    expect(gate?.[1].properties.get('agentevalops.verdict')).toBe(comparison!.verdict)
  })

  it('keeps the github-actions reporter Vitest adds inside GitHub Actions, beside ours', () => {
    const { result } = auto
    expect(result.code, tail(result.output)).toBe(1)
    // The failing trials become error annotations on the run.
    const errors = result.stdout.split('\n').filter((l) => l.startsWith('::error '))
    expect(errors.length, tail(result.output)).toBe(2)
    expect(errors.some((l) => l.includes('title=[evals] evals/ci.eval.ts > ci-output > gamma #0,'))).toBe(
      true,
    )
    // With no reporter that reads annotations, trials make none (default would list a failed case's here).
    expect(result.stdout).not.toContain('matches-expected 1.000 pass')
    // And its job summary reached the file Actions named.
    expect(auto.stepSummary).toMatch(/Vitest Test Report|Test Files|Tests/)
    // Our reporters ran too: the progress line at the last trial, then the bundle.
    expect(result.stdout).toMatch(/^agentevalops: 6\/6 trials · pass 66\.7% so far · \$0\.0060 · \d+s$/m)
    expect(result.stdout).toMatch(/agentevalops: 4\/6 trials passed \(66\.7%\) · bundle /)
  })

  it('prints workflow commands when the workflow names github-actions beside junit', () => {
    const { result } = workflow
    expect(result.code, tail(result.output)).toBe(1)
    expect(
      result.stdout.split('\n').filter((l) => l.startsWith('::error ')).length,
      tail(result.output),
    ).toBe(4)
    expect(workflow.stepSummary).not.toBe('')
  })

  it('writes the headline and the regressed tasks to $GITHUB_STEP_SUMMARY, beside Vitest’s own summary', () => {
    const { summary } = workflow.scores
    const comparison = summary.comparison!
    expect(comparison.overall.regressions.map((r) => r.taskId)).toEqual(['beta'])
    const ours = workflow.stepSummary.slice(workflow.stepSummary.indexOf('## agentevalops run '))
    expect(ours).toContain(`**Pass rate: ${(summary.headline.primary.rate! * 100).toFixed(1)}%**`)
    expect(ours).toContain(`**Regressed tasks** (1; pass rate, baseline → this run):`)
    expect(ours).toContain('- ci-output/beta: 100.0% → 0.0%')
    expect(ours).toContain(`: ${comparison.verdict}`)
    // The baseline run had no baseline: its summary has the headline and no comparison.
    expect(auto.stepSummary).toContain('**Pass rate: 66.7%**')
    expect(auto.stepSummary).not.toContain('Regressed tasks')
  })
})
