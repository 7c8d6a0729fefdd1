import { existsSync } from 'node:fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  DurableFileWriter,
  ScoresJsonWriter,
  sealBundle,
  validateBundle,
  writeBundle,
  type SealBundleInput,
} from '../../src/bundles/index.ts'
import { toBundleJson } from '../../src/bundles/manifest.ts'
import {
  BUNDLE_FORMAT_VERSION,
  isAgentEvalOpsError,
  ScoresFile,
  type TrialRecord,
} from '../../src/core/index.ts'
import { bundleInput, makeEvents, tempDir, toJsonl } from './fixtures.ts'

let work: { path: string; remove: () => Promise<void> }

beforeEach(async () => {
  work = await tempDir('aeo-seal-')
})

afterEach(async () => {
  await work.remove()
})

/** What a folding reporter hands sealBundle: the same run as writeBundle's fixture, its two big files pre-written. */
async function sealInput(overrides: Partial<SealBundleInput> = {}): Promise<SealBundleInput> {
  const input = await bundleInput(work.path)
  const tracesPath = join(work.path, 'traces.part')
  const traces = await DurableFileWriter.create(tracesPath)
  for (const trial of input.trials) await traces.write(toJsonl(makeEvents(trial)))
  const scoresPath = join(work.path, 'scores.part')
  const scores = await ScoresJsonWriter.create(scoresPath)
  for (const trial of input.trials) await scores.trial(trial)
  return {
    runsDir: input.runsDir,
    metadata: input.metadata,
    trials: input.trials,
    traces: { sourcePath: tracesPath, digest: await traces.close() },
    scores: { sourcePath: scoresPath, digest: await scores.finish(input.summary) },
    reports: input.reports,
    replayCommand: input.replayCommand,
    extraFiles: input.extraFiles ?? [],
    createdAt: input.createdAt!,
    ...overrides,
  }
}

describe('ScoresJsonWriter', () => {
  it('writes the bytes of the whole scores.json at once, a trial at a time', async () => {
    const input = await bundleInput(work.path)
    const path = join(work.path, 'scores.json')
    const writer = await ScoresJsonWriter.create(path)
    for (const trial of input.trials) await writer.trial(trial)
    await writer.finish(input.summary)
    const whole = {
      schemaVersion: BUNDLE_FORMAT_VERSION,
      trials: input.trials.map(({ runId: _r, timing: _t, ...t }) => t),
      summary: input.summary,
    }
    // What writeBundle writes: the file as its schema orders it.
    expect(await readFile(path, 'utf8')).toBe(toBundleJson(ScoresFile.parse(whole)))
  })

  it('writes an empty trial list as JSON.stringify does', async () => {
    const input = await bundleInput(work.path)
    const path = join(work.path, 'scores.json')
    await (await ScoresJsonWriter.create(path)).finish(input.summary)
    expect(await readFile(path, 'utf8')).toBe(
      toBundleJson(
        ScoresFile.parse({ schemaVersion: BUNDLE_FORMAT_VERSION, trials: [], summary: input.summary }),
      ),
    )
  })
})

describe('sealBundle', () => {
  it('seals pre-written traces and scores into a bundle equal to the one writeBundle writes', async () => {
    const sealed = await sealBundle(await sealInput())
    expect(await validateBundle(sealed)).toEqual([])
    const other = await bundleInput(join(work.path, 'other'))
    const written = await writeBundle(other)
    for (const file of ['traces.jsonl', 'scores.json', 'metadata.json', 'report.md', 'manifest.json'])
      expect(await readFile(join(sealed, file), 'utf8'), file).toBe(
        await readFile(join(written, file), 'utf8'),
      )
    // The pre-written files were moved in, not copied: nothing of them is left behind.
    expect(existsSync(join(work.path, 'traces.part'))).toBe(false)
    expect(existsSync(join(work.path, 'scores.part'))).toBe(false)
  })

  it('refuses trials of another run, a wrong trial count or a duplicate trial, and writes nothing', async () => {
    const base = await sealInput()
    const trials: TrialRecord[] = [...(base.trials as TrialRecord[])]
    const cases: Partial<SealBundleInput>[] = [
      { trials: trials.map((t, i) => (i === 1 ? { ...t, runId: 'other-run' } : t)) },
      { metadata: { ...base.metadata, trialCount: trials.length + 1 } },
      { trials: [...trials.slice(0, -1), trials[0]!] },
    ]
    for (const overrides of cases) {
      const error = await sealBundle({ ...base, ...overrides }).catch((e: unknown) => e)
      expect(isAgentEvalOpsError(error, 'BUNDLE_INVALID'), String(error)).toBe(true)
    }
    expect(existsSync(base.runsDir)).toBe(false)
  })

  it('never overwrites an existing bundle, and removes its own staging folder', async () => {
    const first = await sealBundle(await sealInput())
    const manifest = await readFile(join(first, 'manifest.json'), 'utf8')
    const again = await sealInput()
    const error = await sealBundle(again).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'BUNDLE_EXISTS')).toBe(true)
    expect(await readFile(join(first, 'manifest.json'), 'utf8')).toBe(manifest)
    expect(await readdir(again.runsDir)).toEqual([again.metadata.runId])
  })

  it('stamps the manifest with the digests it was given, so a file changed after its digest fails validation', async () => {
    const input = await sealInput()
    const text = await readFile(input.traces.sourcePath, 'utf8')
    // Same size, other bytes: only the checksum can tell.
    await writeFile(input.traces.sourcePath, text.replace('add the numbers', 'add the Numbers'))
    const dir = await sealBundle(input)
    const findings = await validateBundle(dir)
    expect(findings.map((f) => f.check)).toContain('manifest-checksums')
  })
})
