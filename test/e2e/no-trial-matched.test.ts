// A -t pattern that matches no trial, through `vitest run --project evals` and through `agentevalops run`: the run
// says so in one line, writes no bundle, leaves no staging folder, and exits as Vitest does for a run without tests
// (1; 0 with --passWithNoTests) — Vitest on its own exits 0 when -t skips every test.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  REPO_ROOT,
  bundleDirs,
  listDir,
  runCli,
  runVitest,
  tail,
  useBuiltCli,
  type VitestResult,
} from './helpers.ts'

const PATTERN = 'no-such-task'
const MESSAGE = `agentevalops: no trial matched the -t pattern "${PATTERN}"; no bundle written`
const CONFIG = 'configs/toy_smoke.yaml'

const { cli, newTemp } = useBuiltCli()

async function expectNoTrialMatched(result: VitestResult, runsDir: string, code: number): Promise<void> {
  expect(result.code, tail(result.output)).toBe(code)
  expect(result.output.split(MESSAGE)).toHaveLength(2)
  if (code === 1) {
    expect(result.stderr).toContain(MESSAGE)
    expect(result.stderr).toContain('fix it, or pass --passWithNoTests to exit 0')
  } else {
    expect(result.output).toContain(`${MESSAGE} (exit 0: passWithNoTests).`)
  }
  expect(await bundleDirs(runsDir)).toEqual([])
  // Not even an empty .staging folder.
  expect(await listDir(runsDir)).toEqual([])
}

describe('-t matching no trial', () => {
  it('vitest run --project evals: says so, writes no bundle and exits 1', async () => {
    const runsDir = await newTemp('aeo-no-match-runs-')
    const result = await runVitest(['run', '--project', 'evals', '-t', PATTERN], {
      runsDir,
      env: { AGENTEVALOPS_CONFIG: join(REPO_ROOT, CONFIG) },
      timeoutMs: 90_000,
    })
    await expectNoTrialMatched(result, runsDir, 1)
  }, 120_000)

  it('vitest run --project evals --passWithNoTests: says so, writes no bundle and exits 0', async () => {
    const runsDir = await newTemp('aeo-no-match-runs-')
    const result = await runVitest(['run', '--project', 'evals', '-t', PATTERN, '--passWithNoTests'], {
      runsDir,
      env: { AGENTEVALOPS_CONFIG: join(REPO_ROOT, CONFIG) },
      timeoutMs: 90_000,
    })
    await expectNoTrialMatched(result, runsDir, 0)
  }, 120_000)

  it('agentevalops run <config> -t: says so, writes no bundle and exits 1', async () => {
    const runsDir = await newTemp('aeo-no-match-runs-')
    const result = await runCli(cli(), ['run', CONFIG, '-t', PATTERN, '--output', runsDir], {
      cwd: REPO_ROOT,
      runsDir,
      timeoutMs: 90_000,
    })
    await expectNoTrialMatched(result, runsDir, 1)
  }, 120_000)

  it('agentevalops run <config> -t --passWithNoTests: says so, writes no bundle and exits 0', async () => {
    const runsDir = await newTemp('aeo-no-match-runs-')
    const result = await runCli(
      cli(),
      ['run', CONFIG, '-t', PATTERN, '--passWithNoTests', '--output', runsDir],
      { cwd: REPO_ROOT, runsDir, timeoutMs: 90_000 },
    )
    await expectNoTrialMatched(result, runsDir, 0)
  }, 120_000)
})
