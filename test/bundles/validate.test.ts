import { readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateBundle, type Finding } from '../../src/bundles/index.ts'
import { listBundleFiles } from '../../src/bundles/manifest.ts'
import {
  buildBundle,
  copyBundle,
  editScores,
  flipByte,
  readTraceLines,
  restampManifest,
  tempDir,
  writeTraceLines,
} from './fixtures.ts'

let work: Awaited<ReturnType<typeof tempDir>>
let pristine: string
let files: string[]
let copies = 0

beforeAll(async () => {
  work = await tempDir('aeo-validate-')
  pristine = await buildBundle(work.path)
  files = (await listBundleFiles(pristine)).files
})
afterAll(async () => work.remove())

/** A fresh copy of the valid bundle for one case to damage. */
async function fresh(): Promise<string> {
  return copyBundle(pristine, join(work.path, `copy-${++copies}`))
}

function files_of(findings: readonly Finding[]): string[] {
  return findings.map((f) => f.file)
}

/**
 * Rewrites traces.jsonl through `edit` and re-stamps the manifest, so checksums cannot be what catches it. Each
 * trial's eventCount in scores.json is made the number of its edited events, so that only the check a case is
 * about can see the edit.
 */
async function editTraces(
  edit: (events: Record<string, unknown>[]) => Record<string, unknown>[],
): Promise<string> {
  const dir = await fresh()
  const events = edit((await readTraceLines(dir)).map((l) => JSON.parse(l) as Record<string, unknown>))
  await writeTraceLines(
    dir,
    events.map((e) => JSON.stringify(e)),
  )
  await editScores(dir, (scores) => {
    for (const trial of scores.trials) {
      const own = events.filter((e) => e.taskId === trial.taskId && e.trial === trial.trial)
      if (own.length > 0) trial.eventCount = own.length
    }
  })
  await restampManifest(dir)
  return dir
}

describe('validateBundle', () => {
  it('finds nothing wrong with a bundle the writer produced', async () => {
    expect(files).toEqual([
      'artifacts/task-0/answer.txt',
      'manifest.json',
      'metadata.json',
      'replay_command.txt',
      'report.md',
      'scores.json',
      'traces.jsonl',
    ])
    expect(await validateBundle(pristine)).toEqual([])
  })

  it('names the file when any single byte of any file is flipped', async () => {
    for (const file of files) {
      const { size } = await stat(join(pristine, file))
      // The manifest protects every byte of the other files, but only the structure of itself (a flipped digit of
      // its own createdAt is undetectable by design), so it is flipped at its first and last byte only.
      const positions = file === 'manifest.json' ? [0, size - 1] : [0, Math.floor(size / 2), size - 1]
      for (const position of positions) {
        const dir = await fresh()
        await flipByte(join(dir, file), position)
        const findings = await validateBundle(dir)
        expect(findings.length, `${file}@${position}`).toBeGreaterThan(0)
        expect(files_of(findings), `${file}@${position}: ${JSON.stringify(findings)}`).toContain(file)
      }
    }
  })

  it('names the file when any file is deleted', async () => {
    for (const file of files) {
      const dir = await fresh()
      await rm(join(dir, file))
      const findings = await validateBundle(dir)
      expect(files_of(findings), file).toContain(file)
      expect(findings.find((f) => f.file === file)?.message).toMatch(/missing/)
    }
  })

  it('flags a file that is on disk but not in the manifest', async () => {
    const dir = await fresh()
    await writeFile(join(dir, 'notes.txt'), 'added later\n')
    expect(await validateBundle(dir)).toEqual([
      { check: 'no-extra-files', file: 'notes.txt', message: 'is not listed in manifest.json' },
    ])
  })

  it('checks recordings.jsonl: each line a recorded exchange of a trial the scores know', async () => {
    const exchange = (taskId: string, trial: number) =>
      JSON.stringify({
        v: 1,
        taskId,
        trial,
        key: 'a'.repeat(64),
        ordinal: 0,
        request: { model: 'm' },
        response: { content: [] },
        attempts: [],
        recordedAt: '2025-01-02T03:04:05.000Z',
      })
    const good = await fresh()
    await writeFile(join(good, 'recordings.jsonl'), `${exchange('task-0', 1)}\n`)
    await restampManifest(good)
    expect(await validateBundle(good)).toEqual([])

    const bad = await fresh()
    await writeFile(join(bad, 'recordings.jsonl'), `${exchange('task-9', 0)}\n{"v":1}\nnot json\n`)
    await restampManifest(bad)
    const messages = (await validateBundle(bad)).map((f) => `${f.file}: ${f.message}`)
    expect(messages).toHaveLength(3)
    expect(messages[0]).toBe(
      'recordings.jsonl: line 1: a recording of task "task-9" trial 0, which scores.json does not have',
    )
    expect(messages[1]).toMatch(/^recordings\.jsonl: line 2: /)
    expect(messages[2]).toMatch(/^recordings\.jsonl: line 3: not valid JSON/)
  })

  it('catches a trial whose events were removed, through the cross-file check alone', async () => {
    const dir = await editTraces((events) => events.filter((e) => !(e.taskId === 'task-1' && e.trial === 0)))
    const findings = await validateBundle(dir)
    expect(findings).toHaveLength(1)
    expect(findings[0]?.file).toBe('traces.jsonl')
    expect(findings[0]?.message).toMatch(/task "task-1" trial 0 .*no events/)
  })

  it('catches a duplicate terminal event', async () => {
    const dir = await editTraces((events) => {
      const trial = events.filter((e) => e.taskId === 'task-0' && e.trial === 0)
      const terminal = trial.find((e) => e.kind === 'agent.terminal')!
      const last = trial[trial.length - 1]!
      const extra = { ...terminal, step: (last.step as number) + 1 }
      const at = events.indexOf(last) + 1
      return [...events.slice(0, at), extra, ...events.slice(at)]
    })
    const findings = await validateBundle(dir)
    expect(findings).toHaveLength(1)
    expect(findings[0]?.message).toMatch(
      /task "task-0" trial 0 \(benchmark "toy"\) has 2 agent.terminal events/,
    )
  })

  it('catches a trial without a terminal event', async () => {
    const dir = await editTraces((events) =>
      events.filter((e) => !(e.taskId === 'task-2' && e.trial === 1 && e.kind === 'agent.terminal')),
    )
    expect((await validateBundle(dir)).map((f) => f.message)).toEqual([
      'task "task-2" trial 1 (benchmark "toy") has 0 agent.terminal events, expected exactly 1',
    ])
  })

  it('catches steps that do not strictly increase, with the line number', async () => {
    const dir = await editTraces((events) => {
      const copy = [...events]
      ;[copy[1], copy[2]] = [copy[2]!, copy[1]!]
      return copy
    })
    const findings = await validateBundle(dir)
    expect(findings).toHaveLength(1)
    expect(findings[0]).toEqual({
      check: 'trace-steps',
      file: 'traces.jsonl',
      message: expect.stringMatching(
        /^line 3: step 1 of task "task-0" trial 0 \(benchmark "toy"\) does not follow step 2/,
      ) as string,
    })
  })

  it('catches a trial that does not start at step 0', async () => {
    const dir = await editTraces((events) =>
      events.filter((e) => !(e.taskId === 'task-0' && e.trial === 1 && e.step === 0)),
    )
    const findings = await validateBundle(dir)
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/task "task-0" trial 1 \(benchmark "toy"\) starts at step 1, expected 0/),
    ])
  })

  it('catches events of a trial that is not in scores.json', async () => {
    const dir = await editTraces((events) => [
      ...events,
      ...events
        .filter((e) => e.taskId === 'task-2' && e.trial === 1)
        .map((e) => ({ ...e, taskId: 'task-9' })),
    ])
    const findings = await validateBundle(dir)
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/for task "task-9" trial 1 \(benchmark "toy"\), which is not in scores.json/),
    ])
  })

  it("catches an event with another run's id", async () => {
    const dir = await editTraces((events) =>
      events.map((e, i) => (i === 4 ? { ...e, runId: 'other-run' } : e)),
    )
    const findings = await validateBundle(dir)
    expect(findings).toEqual([
      {
        check: 'run-ids',
        file: 'traces.jsonl',
        message: expect.stringMatching(/^line 5: runId "other-run"/) as string,
      },
    ])
  })

  it('catches a trial whose events are split apart', async () => {
    const dir = await editTraces((events) => {
      const moved = events.filter((e) => e.taskId === 'task-0' && e.trial === 0 && (e.step as number) >= 5)
      return [...events.filter((e) => !moved.includes(e)), ...moved]
    })
    const messages = (await validateBundle(dir)).map((f) => f.message)
    expect(
      messages.some((m) =>
        /events of task "task-0" trial 0 \(benchmark "toy"\) resume after other trials/.test(m),
      ),
    ).toBe(true)
  })

  it('reports an invalid event line with its line number', async () => {
    const dir = await fresh()
    const lines = await readTraceLines(dir)
    lines[2] = JSON.stringify({ ...(JSON.parse(lines[2]!) as object), kind: 'agent.teleport' })
    await writeTraceLines(dir, lines)
    await restampManifest(dir)
    const findings = await validateBundle(dir)
    expect(findings[0]).toEqual({
      check: 'trace-schema',
      file: 'traces.jsonl',
      message: expect.stringMatching(/^line 3: /) as string,
    })
  })

  it('caps line-level findings so a badly broken trace stays readable', async () => {
    const dir = await fresh()
    const lines = await readTraceLines(dir)
    await writeTraceLines(
      dir,
      lines.map(() => '{not json'),
    )
    await restampManifest(dir)
    const findings = (await validateBundle(dir)).filter((f) => f.file === 'traces.jsonl')
    expect(findings.filter((f) => /^line \d+: not valid JSON/.test(f.message))).toHaveLength(20)
    expect(findings.some((f) => f.message === `… and ${lines.length - 20} more invalid lines`)).toBe(true)
  })

  it('checks metadata.trialCount against scores.json', async () => {
    const dir = await fresh()
    const metadata = JSON.parse(await readFile(join(dir, 'metadata.json'), 'utf8')) as Record<string, unknown>
    await writeFile(join(dir, 'metadata.json'), JSON.stringify({ ...metadata, trialCount: 5 }))
    await restampManifest(dir)
    expect(await validateBundle(dir)).toEqual([
      {
        check: 'trial-count',
        file: 'metadata.json',
        message: 'trialCount is 5 but scores.json has 6 trial(s)',
      },
    ])
  })

  it('checks that manifest, metadata and scores name the same run', async () => {
    const dir = await fresh()
    await restampManifest(dir, 'another-run')
    expect(await validateBundle(dir)).toEqual([
      {
        check: 'run-ids',
        file: 'manifest.json',
        message: expect.stringMatching(/runId "another-run" does not match metadata.json/) as string,
      },
    ])
  })

  it('flags a manifest entry that points outside the bundle', async () => {
    const dir = await fresh()
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { files: object[] }
    manifest.files.push({ path: '../outside.txt', sha256: 'e'.repeat(64), size: 1 })
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest))
    expect(await validateBundle(dir)).toEqual([
      {
        check: 'safe-paths',
        file: 'manifest.json',
        message: 'lists "../outside.txt", which is not a path inside the bundle',
      },
    ])
  })

  it('refuses a bundle from a newer format version with a message to upgrade', async () => {
    const dir = await fresh()
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as object
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, formatVersion: 4 }))
    const findings = await validateBundle(dir)
    expect(findings).toEqual([
      {
        check: 'format-version',
        file: 'manifest.json',
        message: expect.stringMatching(/formatVersion 4 is newer.*upgrade agentevalops/) as string,
      },
    ])
  })

  it('refuses metadata from a newer schema version with a message to upgrade', async () => {
    const dir = await fresh()
    const metadata = JSON.parse(await readFile(join(dir, 'metadata.json'), 'utf8')) as object
    await writeFile(join(dir, 'metadata.json'), JSON.stringify({ ...metadata, schemaVersion: 4 }))
    await restampManifest(dir)
    const findings = await validateBundle(dir)
    expect(findings).toEqual([
      {
        check: 'format-version',
        file: 'metadata.json',
        message: expect.stringMatching(/schemaVersion 4 is newer.*upgrade/) as string,
      },
    ])
  })

  it('reports a folder that does not exist as a single finding', async () => {
    const findings = await validateBundle(join(work.path, 'nope'))
    expect(findings).toHaveLength(1)
    expect(findings[0]?.message).toMatch(/not a bundle folder/)
  })
})
