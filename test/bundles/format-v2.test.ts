// Readers accept every older format version (DESIGN §5): a format-2 bundle, whose trace events do not name their
// benchmark, still validates and reads, each event given the benchmark of its trial, and re-renders.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle, validateBundle } from '../../src/bundles/index.ts'
import { ScoresFile } from '../../src/core/index.ts'
import { runCli } from '../cli/helpers.ts'
import {
  buildBundle,
  dropEventBenchmarks,
  readTraceLines,
  restampManifest,
  tempDir,
  writeTraceLines,
} from './fixtures.ts'

let work: { path: string; remove: () => Promise<void> }
let dir: string

async function editJson(path: string, edit: (value: Record<string, unknown>) => object): Promise<void> {
  const value = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>
  await writeFile(path, `${JSON.stringify(edit(value), null, 2)}\n`)
}

/** Rewrites a bundle of today's format as format 2 wrote it. */
async function downgrade(bundle: string): Promise<void> {
  await editJson(join(bundle, 'scores.json'), (scores) => ({
    ...ScoresFile.parse(scores),
    schemaVersion: 2,
  }))
  await editJson(join(bundle, 'metadata.json'), (metadata) => ({ ...metadata, schemaVersion: 2 }))
  await dropEventBenchmarks(bundle)
  await restampManifest(bundle)
  await editJson(join(bundle, 'manifest.json'), (manifest) => ({ ...manifest, formatVersion: 2 }))
}

beforeAll(async () => {
  work = await tempDir('aeo-v2-')
  dir = await buildBundle(join(work.path, 'ok'))
  await downgrade(dir)
})

afterAll(async () => {
  await work.remove()
})

describe('a format-2 bundle', () => {
  it('validates', async () => {
    expect(await validateBundle(dir)).toEqual([])
  })

  it('reads, each event given the benchmark of its trial, which it does not name', async () => {
    expect(await readFile(join(dir, 'traces.jsonl'), 'utf8')).not.toContain('"benchmark"')
    const bundle = await readBundle(dir)
    expect(bundle.manifest.formatVersion).toBe(2)
    expect(bundle.scores.schemaVersion).toBe(2)
    expect(bundle.scores.summary).not.toBeNull()
    expect(bundle.scores.trials).toHaveLength(6)
    for (const trial of bundle.scores.trials) {
      const own = bundle.events.filter(
        (e) => e.benchmark === trial.benchmark.id && e.taskId === trial.taskId && e.trial === trial.trial,
      )
      expect(own.map((e) => e.step)).toEqual([0, 1, 2, 3, 4, 5, 6])
    }
    expect(bundle.events).toHaveLength(6 * 7)
  })

  it('re-renders (agentevalops report)', async () => {
    const r = await runCli('report', dir)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/\*\*Pass rate: 66\.7%\*\*/)
  })

  it('still has its events checked against its trials', async () => {
    const other = await buildBundle(join(work.path, 'foreign'))
    await downgrade(other)
    const lines = await readTraceLines(other)
    await writeTraceLines(other, [
      ...lines,
      ...lines.slice(0, 7).map((l) => l.replace('"task-0"', '"task-9"')),
    ])
    await restampManifest(other)
    await editJson(join(other, 'manifest.json'), (manifest) => ({ ...manifest, formatVersion: 2 }))
    expect((await validateBundle(other)).map((f) => f.message)).toEqual([
      '7 event(s) for task "task-9" trial 0, which is not in scores.json',
    ])
  })
})

describe('a format-3 bundle', () => {
  it('has every event name its benchmark', async () => {
    const bundle = await buildBundle(join(work.path, 'v3'))
    await dropEventBenchmarks(bundle)
    await restampManifest(bundle)
    const findings = await validateBundle(bundle)
    expect(new Set(findings.map((f) => f.check))).toEqual(new Set(['trace-schema']))
    expect(findings[0]?.message).toBe(
      'line 1: the event names no benchmark (every event does from format 3 on)',
    )
  })
})
