// The small suite, run for real: 8 tasks × 3 trials; in the second run two tasks go from 3/3 to 0/3. No
// test at α can show that, so `agentevalops compare` (the built CLI, a child process) says INSUFFICIENT_EVIDENCE and
// exits 0, but lists both broken tasks; with --fail-on-broken it exits 1. The baseline gate of evalBenchmark with
// `compare: { failOnBroken: true }` fails its case on them the same way, and its bundle carries the comparison.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BaselineComparison } from '../../src/core/index.ts'
import {
  bundleDirs,
  createTempProject,
  readScores,
  runCli,
  runVitest,
  sayYesSuiteEval,
  tail,
  useBuiltCli,
  type TempProject,
} from './helpers.ts'

const TASKS = Array.from({ length: 8 }, (_, i) => `task-${i}`)
const BROKEN = new Set([2, 5])

function evalFile(broken: boolean, gate: string | null): string {
  return sayYesSuiteEval({
    benchmark: 'small-suite',
    taskIds: TASKS,
    wrong: (i) => broken && BROKEN.has(i),
    trials: 3,
    extra: gate ?? '',
  })
}

const { cli } = useBuiltCli()
let project: TempProject

beforeAll(async () => {
  project = await createTempProject({
    'evals/good.eval.ts': evalFile(false, null),
    'evals/bad.eval.ts': evalFile(true, null),
    'evals/gated.eval.ts': evalFile(true, `baseline: 'latest', compare: { failOnBroken: true },`),
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
    timeoutMs: 60_000,
  })
  const fresh = (await bundleDirs(project.runsDir)).filter((d) => !before.has(d))
  expect(fresh, tail(result.output)).toHaveLength(1)
  return { result, dir: fresh[0]! }
}

const compareCli = (...args: string[]) =>
  runCli(cli(), ['compare', ...args], { cwd: project.root, runsDir: project.runsDir, timeoutMs: 60_000 })

describe('compare on a small suite where two tasks broke', { timeout: 240_000 }, () => {
  it('lists the broken tasks, exits 0 without --fail-on-broken and 1 with it; the gate fails on them', async () => {
    const good = await run('good.eval.ts')
    expect(good.result.code, tail(good.result.output)).toBe(0)

    // The gate case of a run that compares with `latest` (the good run) while it runs.
    const gated = await run('gated.eval.ts')
    expect(gated.result.code, tail(gated.result.output)).toBe(1)
    expect(gated.result.output).toMatch(/FAIL .*small-suite > baseline: no regression vs latest/)
    expect(gated.result.output).toMatch(/broken tasks: task-2 \(3\/3 → 0\/3\), task-5 \(3\/3 → 0\/3\)/)
    const comparison = (await readScores(gated.dir)).summary.comparison
    expect(comparison?.verdict).toBe('NO_GO')
    expect(comparison?.overall.verdict).toBe('INSUFFICIENT_EVIDENCE')
    expect(comparison?.broken.map((b) => b.taskId)).toEqual(['task-2', 'task-5'])

    const bad = await run('bad.eval.ts')
    expect(bad.result.code, tail(bad.result.output)).toBe(0)
    const plain = await compareCli(good.dir, bad.dir)
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).toMatch(/^INSUFFICIENT_EVIDENCE — 8 paired tasks; at least 10 are needed/)
    expect(plain.stdout).toContain(
      'broken (2) — always passed in the baseline, never pass now; --fail-on-broken fails on them:\n' +
        '  small-suite/task-2  3/3 → 0/3\n' +
        '  small-suite/task-5  3/3 → 0/3',
    )

    const strict = await compareCli(good.dir, bad.dir, '--fail-on-broken')
    expect(strict.code, strict.stderr).toBe(1)
    expect(strict.stdout).toMatch(
      /^NO_GO — 2 broken tasks \(always passed in the baseline, never pass now: small-suite\/task-2 \(3\/3 → 0\/3\), small-suite\/task-5 \(3\/3 → 0\/3\)\) and failOnBroken is set/,
    )
    const json = BaselineComparison.parse(
      JSON.parse((await compareCli(good.dir, bad.dir, '--json', '--fail-on-broken')).stdout),
    )
    expect(json.verdict).toBe('NO_GO')
    expect(json.broken.map((b) => b.taskId)).toEqual(['task-2', 'task-5'])
  })
})
