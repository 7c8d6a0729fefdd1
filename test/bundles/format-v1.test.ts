// Readers accept every older format version (DESIGN §5): a format-1 bundle (the run id in scores.json and in each
// trial, counts-only statistics, events that do not name their benchmark) still validates, reads, and re-renders
// with today's statistics.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle, validateBundle } from '../../src/bundles/index.ts'
import { ScoresFile } from '../../src/core/index.ts'
import { runCli } from '../cli/helpers.ts'
import { buildBundle, dropEventBenchmarks, RUN_ID, restampManifest, tempDir } from './fixtures.ts'

let work: { path: string; remove: () => Promise<void> }
let dir: string

/** Rewrites a bundle of today's format as format 1 wrote it. */
async function downgrade(
  bundle: string,
  runId: string,
  edit: (scores: Record<string, unknown>) => void = () => {},
) {
  const scores = ScoresFile.parse(JSON.parse(await readFile(join(bundle, 'scores.json'), 'utf8')))
  const v1: Record<string, unknown> = {
    schemaVersion: 1,
    runId,
    trials: scores.trials.map((t) => ({ runId, ...t })),
    summary: {
      n: scores.summary.n,
      passed: scores.summary.passed,
      passRate: scores.summary.passRate,
      outcomes: scores.summary.outcomes,
      evaluators: [],
      usage: { tokens: 0, costUsd: 0, wallSeconds: 0, turns: 0 },
    },
  }
  edit(v1)
  await writeFile(join(bundle, 'scores.json'), `${JSON.stringify(v1, null, 2)}\n`)
  const metadata = JSON.parse(await readFile(join(bundle, 'metadata.json'), 'utf8')) as Record<
    string,
    unknown
  >
  await writeFile(
    join(bundle, 'metadata.json'),
    `${JSON.stringify({ ...metadata, schemaVersion: 1 }, null, 2)}\n`,
  )
  await dropEventBenchmarks(bundle)
  await restampManifest(bundle, runId)
  const manifest = JSON.parse(await readFile(join(bundle, 'manifest.json'), 'utf8')) as Record<
    string,
    unknown
  >
  await writeFile(
    join(bundle, 'manifest.json'),
    `${JSON.stringify({ ...manifest, formatVersion: 1 }, null, 2)}\n`,
  )
}

beforeAll(async () => {
  work = await tempDir('aeo-v1-')
  dir = await buildBundle(join(work.path, 'ok'))
  await downgrade(dir, RUN_ID)
})

afterAll(async () => {
  await work.remove()
})

describe('a format-1 bundle', () => {
  it('validates', async () => {
    expect(await validateBundle(dir)).toEqual([])
  })

  it('reads, with its trials and no summary to recompute from', async () => {
    const bundle = await readBundle(dir)
    expect(bundle.manifest.formatVersion).toBe(1)
    expect(bundle.scores.schemaVersion).toBe(1)
    expect(bundle.scores.summary).toBeNull()
    expect(bundle.scores.trials).toHaveLength(6)
    expect(bundle.scores.trials[0]).not.toHaveProperty('runId')
    // Its events name no benchmark: each gets its trial's.
    expect(await readFile(join(dir, 'traces.jsonl'), 'utf8')).not.toContain('"benchmark"')
    expect(new Set(bundle.events.map((e) => e.benchmark))).toEqual(new Set(['toy']))
  })

  it('re-renders with the statistics of today (agentevalops report)', async () => {
    const r = await runCli('report', dir)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/\*\*Pass rate: 66\.7%\*\*/)
    expect(r.stdout).toContain('pass@k')
  })

  it('still has its run ids checked: a trial of another run is a finding', async () => {
    const other = await buildBundle(join(work.path, 'foreign'))
    await downgrade(other, RUN_ID, (scores) => {
      ;(scores.trials as Record<string, unknown>[])[2]!.runId = 'another-run'
    })
    const findings = await validateBundle(other)
    expect(findings.map((f) => f.message).join('\n')).toMatch(/trials\[2\] .* has runId "another-run"/)
  })
})
