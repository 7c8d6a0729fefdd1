// evalBenchmark({ baseline: 'latest' }) in a real Vitest run: the first run writes the baseline; a later run whose
// agent got 8 of 12 tasks wrong fails its "baseline: no regression" gate case with NO_GO (the trial cases pass
// under a minPassRate 0 gate), and its bundle carries the comparison the gate made.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  bundleDirs,
  createTempProject,
  readScores,
  runVitest,
  sayYesSuiteEval,
  tail,
  validateWithCli,
  type TempProject,
} from './helpers.ts'

const TASKS = Array.from({ length: 12 }, (_, i) => `task-${String(i).padStart(2, '0')}`)

function evalFile(wrong: number, baseline: string | null): string {
  return sayYesSuiteEval({
    benchmark: 'gate-baseline',
    taskIds: TASKS,
    wrong: (i) => i < wrong,
    extra: baseline === null ? '' : `baseline: ${JSON.stringify(baseline)},`,
  })
}

let project: TempProject

beforeAll(async () => {
  project = await createTempProject({
    'evals/good.eval.ts': evalFile(0, null),
    'evals/bad.eval.ts': evalFile(8, 'latest'),
    'evals/same.eval.ts': evalFile(0, 'latest'),
  })
})

afterAll(async () => {
  await project?.remove()
}, 60_000)

async function run(file: string) {
  const before = new Set(await bundleDirs(project.runsDir))
  const result = await runVitest(['run', '--project', 'evals', `evals/${file}`], {
    cwd: project.root,
    runsDir: project.runsDir,
    timeoutMs: 40_000,
  })
  const fresh = (await bundleDirs(project.runsDir)).filter((d) => !before.has(d))
  expect(fresh, tail(result.output)).toHaveLength(1)
  const validated = await validateWithCli(fresh[0]!)
  expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)
  return { result, dir: fresh[0]! }
}

describe('evalBenchmark({ baseline }) in a real vitest run', { timeout: 120_000 }, () => {
  it('passes against an equal baseline and fails its gate case with NO_GO against a worse agent', async () => {
    const good = await run('good.eval.ts')
    expect(good.result.code, tail(good.result.output)).toBe(0)
    expect(good.result.output).not.toMatch(/baseline: no regression/)

    const same = await run('same.eval.ts')
    expect(same.result.code, tail(same.result.output)).toBe(0)
    // 12 identical pairs are too few to rule out regressions (exact bound 1 − 0.05^(1/12) = 22.1%): no GO, no failure.
    expect((await readScores(same.dir)).summary.comparison?.verdict).toBe('INSUFFICIENT_EVIDENCE')

    const bad = await run('bad.eval.ts')
    expect(bad.result.code, tail(bad.result.output)).toBe(1)
    expect(bad.result.output).toMatch(/FAIL .*gate-baseline > baseline: no regression vs latest/)
    expect(bad.result.output).toMatch(/NO_GO against baseline/)
    expect(bad.result.output).toMatch(
      /regressed tasks: task-00, task-01, task-02, task-03, task-04, task-05, task-06, task-07/,
    )
    const comparison = (await readScores(bad.dir)).summary.comparison
    // The latest complete bundle before this run is the `same` run's.
    expect(comparison?.baseline.runId).toBe(same.dir.split('/').at(-1))
    expect(comparison?.overall.mcnemar).toMatchObject({ regressions: 8, improvements: 0 })
    expect(comparison?.verdict).toBe('NO_GO')
    expect(await readFile(join(bad.dir, 'report.md'), 'utf8')).toMatch(/NO_GO/)
  })
})
