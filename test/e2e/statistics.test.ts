// Statistics end to end through `agentevalops run` as child processes: two runs of the same scripted benchmark
// write the same scores.json (wall-time figures apart), and a run against a baseline gets the comparison in its
// bundle — no NO_GO for the same agent, NO_GO (failing the gate case, exit 1) for one whose turns were cut to one.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ScoresFile } from '../../src/core/index.ts'
import { REPO_ROOT, bundleDirs, runCli, tail, validateWithCli, useBuiltCli } from './helpers.ts'

const { cli, newTemp } = useBuiltCli(30_000)

/** Runs the CLI into runsDir and returns the bundle folders that are new afterwards. */
async function run(
  args: string[],
  runsDir: string,
  expectedCode: number,
): Promise<{ dir: string; output: string }> {
  const before = new Set(await bundleDirs(runsDir))
  const result = await runCli(cli(), args, { runsDir, timeoutMs: 60_000 })
  expect(result.code, tail(result.output)).toBe(expectedCode)
  const fresh = (await bundleDirs(runsDir)).filter((d) => !before.has(d))
  expect(fresh, 'exactly one new bundle').toHaveLength(1)
  const validated = await validateWithCli(fresh[0]!)
  expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)
  return { dir: fresh[0]!, output: result.output }
}

async function scoresText(dir: string): Promise<string> {
  return readFile(join(dir, 'scores.json'), 'utf8')
}

/** scores.json without its wall-time figures: what must repeat byte for byte between equal runs. */
function withoutWallTime(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutWallTime)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'wallSeconds' && key !== 'latencyMs')
      .map(([key, v]) => [key, withoutWallTime(v)]),
  )
}

describe('statistics through agentevalops run', { timeout: 180_000 }, () => {
  it('two runs of toy_mixed give identical scores.json apart from wall-time figures', async () => {
    const [a, b] = await Promise.all([
      run(['run', 'configs/toy_mixed.yaml'], await newTemp('aeo-stats-a-'), 0),
      run(['run', 'configs/toy_mixed.yaml'], await newTemp('aeo-stats-b-'), 0),
    ])
    const [ta, tb] = await Promise.all([scoresText(a.dir), scoresText(b.dir)])
    // Different runs: different ids, which live in metadata.json and nowhere in scores.json.
    expect(a.dir).not.toBe(b.dir)
    expect(ta).not.toContain(a.dir.split('/').at(-1)!)
    expect(withoutWallTime(JSON.parse(ta))).toEqual(withoutWallTime(JSON.parse(tb)))
    const scores = ScoresFile.parse(JSON.parse(ta))
    expect(scores.summary.settings.bootstrap.seed).toBe(20_261_130)
    expect(scores.summary.overall.passAtK.map((r) => r.k)).toEqual([1, 2, 3])
    // The comparison is not the point here, the figures are: the report shows them.
    const report = await readFile(join(a.dir, 'report.md'), 'utf8')
    expect(report).toMatch(/pass@k/i)
  })

  it('compares with the latest bundle: no NO_GO for the same agent, NO_GO for a worse one, fail_on_broken from YAML', async () => {
    const runsDir = await newTemp('aeo-stats-baseline-')
    const configs = await newTemp('aeo-stats-configs-')
    const base = await run(['run', 'configs/toy_mixed.yaml'], runsDir, 0)

    const same = await run(['run', 'configs/toy_mixed.yaml', '--baseline', 'latest'], runsDir, 0)
    const sameScores = ScoresFile.parse(JSON.parse(await scoresText(same.dir)))
    expect(sameScores.summary.comparison).toMatchObject({
      baseline: { runId: base.dir.split('/').at(-1) },
      pairedTasks: 15,
      // 15 identical pairs: the interval of the change is [0, 0], but up to 1 − 0.05^(1/15) = 18.1% of tasks could
      // regress unseen, so no GO (the exact Clopper–Pearson bound is in the verdict).
      verdict: 'INSUFFICIENT_EVIDENCE',
    })
    expect(same.output).toMatch(/vs baseline .*INSUFFICIENT_EVIDENCE — .*up to 18\.1% of tasks could regress/)

    // A one-token budget: every task whose agent calls the model hits limit_tokens.
    const original = await readFile(join(REPO_ROOT, 'configs', 'toy_mixed.yaml'), 'utf8')
    const worse = join(configs, 'toy_worse.yaml')
    await writeFile(
      worse,
      original.replace('max_tokens: 5000', 'max_tokens: 1').replace('name: toy-mixed', 'name: toy-worse'),
    )
    const regressed = await run(['run', worse, '--baseline', base.dir], runsDir, 1)
    expect(regressed.output).toMatch(/baseline: no regression vs .* NO_GO|NO_GO against baseline/)
    const scores = ScoresFile.parse(JSON.parse(await scoresText(regressed.dir)))
    expect(scores.summary.comparison?.verdict).toBe('NO_GO')
    expect(scores.summary.comparison?.overall.regressions.length).toBeGreaterThan(0)
    const report = await readFile(join(regressed.dir, 'report.md'), 'utf8')
    expect(report).toContain('NO_GO')

    // The config's `compare` mapping: asking for more pairs than there are leaves the statistics no NO_GO, and
    // the broken tasks are only listed; with fail_on_broken they fail the run (its pass-rate gate lowered to 0).
    const ask = async (name: string, compare: string) => {
      const file = join(configs, `${name}.yaml`)
      const text = (await readFile(worse, 'utf8')).replace('min_pass_rate: 0.3', 'min_pass_rate: 0')
      expect(text).toContain('min_pass_rate: 0\n')
      await writeFile(file, `${text}\ncompare: ${compare}\n`)
      return file
    }
    const lenient = await run(
      ['run', await ask('lenient', '{ min_pairs: 1000 }'), '--baseline', base.dir],
      runsDir,
      0,
    )
    const listed = ScoresFile.parse(JSON.parse(await scoresText(lenient.dir))).summary.comparison
    expect(listed?.verdict).toBe('INSUFFICIENT_EVIDENCE')
    expect(listed?.broken.length).toBeGreaterThan(0)
    expect(lenient.output).toMatch(/broken tasks? \(always passed in the baseline, never pass now\)/)
    const strict = await run(
      ['run', await ask('strict', '{ min_pairs: 1000, fail_on_broken: true }'), '--baseline', base.dir],
      runsDir,
      1,
    )
    const failed = ScoresFile.parse(JSON.parse(await scoresText(strict.dir))).summary.comparison
    expect(failed?.settings.failOnBroken).toBe(true)
    expect(failed?.verdict).toBe('NO_GO')
    expect(failed?.broken).toEqual(listed?.broken)
    expect(strict.output).toMatch(/broken tasks: /)
  })
})
