// summary-matches recomputes a summary only with the statistics method that wrote it: a bundle of an older scorer
// (before the stamp, or of another method version) is said to be unchecked, not reported as edited.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inspectBundle } from '../../src/bundles/index.ts'
import type { ValidateBundleJson } from '../../src/cli/commands/validate-bundle.ts'
import { STATISTICS_METHOD_VERSION, statsSummaryRecomputer } from '../../src/scorers/index.ts'
import { runCli } from '../cli/helpers.ts'
import { buildBundle, copyBundle, editScores, restampManifest, tempDir } from './fixtures.ts'

const inspectFully = (dir: string) => inspectBundle(dir, { recomputeSummary: statsSummaryRecomputer })

let work: Awaited<ReturnType<typeof tempDir>>
let pristine: string
let copies = 0

beforeAll(async () => {
  work = await tempDir('aeo-summary-version-')
  pristine = await buildBundle(work.path)
})
afterAll(async () => work.remove())

/** A copy whose headline differs from what its trials give, stamped `version` (undefined: no stamp at all). */
async function olderSummary(version: number | undefined): Promise<{ dir: string; real: number }> {
  const dir = await copyBundle(pristine, join(work.path, `copy-${++copies}`))
  let real = 0
  await editScores(dir, (scores) => {
    const summary = scores.summary
    real = summary.headline.primary.rate!
    summary.headline.primary.rate = 0.99
    if (version === undefined) delete summary.statisticsVersion
    else summary.statisticsVersion = version
  })
  await restampManifest(dir)
  return { dir, real }
}

describe('summary-matches and the statistics method version', () => {
  it('stamps the summary the scorer writes with its method version, and recomputes such a summary', async () => {
    const inspection = await inspectFully(pristine)
    expect(inspection.scores!.summary!.statisticsVersion).toBe(STATISTICS_METHOD_VERSION)
    expect(inspection.findings).toEqual([])
    expect(inspection.notes).toEqual([])
  })

  it('still names an edited headline in a summary of the current method', async () => {
    const { dir, real } = await olderSummary(STATISTICS_METHOD_VERSION)
    const inspection = await inspectFully(dir)
    expect(inspection.findings).toEqual([
      {
        check: 'summary-matches',
        file: 'scores.json',
        message: `summary.headline.primary.rate is 0.99 but the trials give ${real} (changed after the run was scored?)`,
      },
    ])
    expect(inspection.notes).toEqual([])
  })

  it('does not recompute a summary without a stamp (written before it existed): a note, no finding', async () => {
    const { dir } = await olderSummary(undefined)
    const inspection = await inspectFully(dir)
    expect(inspection.findings).toEqual([])
    expect(inspection.notes).toEqual([
      `scores.json: the summary was not recomputed (summary-matches): it names no statistics method (written before summaries carried statisticsVersion), and the figures of another method than this agentevalops's v${STATISTICS_METHOD_VERSION} may differ without an edit`,
    ])
  })

  it('does not recompute a summary of another method version; validate-bundle says so and exits 0', async () => {
    const other = STATISTICS_METHOD_VERSION + 1
    const { dir } = await olderSummary(other)
    const text = await runCli('validate-bundle', dir)
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^ok: /)
    expect(text.stderr).toBe(
      `note: scores.json: the summary was not recomputed (summary-matches): it was written by statistics method v${other}, and the figures of another method than this agentevalops's v${STATISTICS_METHOD_VERSION} may differ without an edit`,
    )
    const json = await runCli('validate-bundle', '--json', dir)
    expect(json.code).toBe(0)
    const report = JSON.parse(json.stdout) as ValidateBundleJson
    expect(report.ok).toBe(true)
    expect(report.findings).toEqual([])
    expect(report.notes).toHaveLength(1)
    expect(report.notes[0]).toContain(`written by statistics method v${other}`)
  })
})
