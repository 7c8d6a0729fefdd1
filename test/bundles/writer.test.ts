import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAgentEvalOpsError, Manifest, ScoresFile, type TraceEvent } from '../../src/core/index.ts'
import { validateBundle, writeBundle } from '../../src/bundles/index.ts'
import { bundleInput, makeEvents, makeTrials, readTraceLines, RUN_ID, tempDir, toJsonl } from './fixtures.ts'

let work: Awaited<ReturnType<typeof tempDir>>
beforeEach(async () => {
  work = await tempDir('aeo-writer-')
})
afterEach(async () => work.remove())

async function expectError(promise: Promise<unknown>, code: string, message?: RegExp): Promise<Error> {
  try {
    await promise
  } catch (e) {
    expect(isAgentEvalOpsError(e), String(e)).toBe(true)
    expect((e as { code: string }).code).toBe(code)
    if (message) expect((e as Error).message).toMatch(message)
    return e as Error
  }
  throw new Error(`expected a ${code} error`)
}

/** What the runs folder holds besides finished bundles: must stay empty whatever happens. */
async function leftovers(runsDir: string): Promise<string[]> {
  return (await readdir(runsDir)).filter((name) => name.startsWith('.staging-'))
}

describe('writeBundle', () => {
  it('writes runs/<runId>/ with every file, merged traces in order and a manifest of all other files', async () => {
    const input = await bundleInput(work.path)
    const dir = await writeBundle(input)
    expect(dir).toBe(join(input.runsDir, RUN_ID))

    const manifest = Manifest.parse(JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')))
    expect(manifest.formatVersion).toBe(3)
    expect(manifest.runId).toBe(RUN_ID)
    expect(manifest.files.map((f) => f.path)).toEqual([
      'artifacts/task-0/answer.txt',
      'metadata.json',
      'replay_command.txt',
      'report.md',
      'scores.json',
      'traces.jsonl',
    ])

    const lines = await readTraceLines(dir)
    const expected = input.trials.flatMap((t) => makeEvents(t))
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(expected)
    const scores = ScoresFile.parse(JSON.parse(await readFile(join(dir, 'scores.json'), 'utf8')))
    expect(scores.trials).toHaveLength(6)
    expect(await readFile(join(dir, 'replay_command.txt'), 'utf8')).toBe('npx vitest run --project evals\n')
    expect(await validateBundle(dir)).toEqual([])
    expect(await leftovers(input.runsDir)).toEqual([])
  })

  it('accepts events and JSONL lines as trace sources', async () => {
    const base = await bundleInput(work.path)
    const events = base.trials.flatMap((t) => makeEvents(t))
    const { traceFiles: _ignored, ...rest } = base
    const fromEvents = await writeBundle({ ...rest, runsDir: join(work.path, 'a'), traceEvents: events })
    async function* lines() {
      for (const line of toJsonl(events).split('\n')) yield line
    }
    const fromLines = await writeBundle({ ...rest, runsDir: join(work.path, 'b'), traceLines: lines() })
    expect(await validateBundle(fromEvents)).toEqual([])
    expect(await validateBundle(fromLines)).toEqual([])
    expect(await readFile(join(fromEvents, 'traces.jsonl'), 'utf8')).toBe(
      await readFile(join(fromLines, 'traces.jsonl'), 'utf8'),
    )
  })

  it('streams a large trace through its buffer intact', async () => {
    const trials = makeTrials({ tasks: ['big'], trials: 1 })
    const trial = trials[0]!
    const template = makeEvents(trial)[1]!
    const count = 4000
    const events: TraceEvent[] = []
    for (let step = 0; step < count - 1; step++) events.push({ ...template, step })
    events.push({ ...makeEvents(trial)[5]!, step: count - 1 })
    const input = await bundleInput(work.path, { tasks: ['big'], trials: 1 })
    const { traceFiles: _ignored, ...rest } = input
    const dir = await writeBundle({
      ...rest,
      trials: rest.trials.map((t) => ({ ...t, eventCount: count })),
      traceEvents: events,
    })
    expect((await readTraceLines(dir)).length).toBe(count)
    expect(await validateBundle(dir)).toEqual([])
  })

  it('never overwrites an existing bundle', async () => {
    const input = await bundleInput(work.path)
    const dir = await writeBundle(input)
    const before = await readFile(join(dir, 'manifest.json'), 'utf8')
    await expectError(
      writeBundle({ ...input, replayCommand: 'something else' }),
      'BUNDLE_EXISTS',
      /already exists/,
    )
    expect(await readFile(join(dir, 'manifest.json'), 'utf8')).toBe(before)
    expect(await readFile(join(dir, 'replay_command.txt'), 'utf8')).toBe('npx vitest run --project evals\n')
    expect(await leftovers(input.runsDir)).toEqual([])
  })

  it('only makes the bundle visible once it is complete', async () => {
    const input = await bundleInput(work.path)
    const finalDir = join(input.runsDir, RUN_ID)
    const events = input.trials.flatMap((t) => makeEvents(t))
    const seen: { final: boolean; staging: number }[] = []
    async function* slowEvents() {
      for (const [i, event] of events.entries()) {
        if (i % 10 === 0) {
          await new Promise((resolve) => setTimeout(resolve, 1))
          seen.push({ final: existsSync(finalDir), staging: (await leftovers(input.runsDir)).length })
        }
        yield event
      }
    }
    const { traceFiles: _ignored, ...rest } = input
    await writeBundle({ ...rest, traceEvents: slowEvents() })
    expect(seen.length).toBeGreaterThan(2)
    expect(seen.every((s) => !s.final && s.staging === 1)).toBe(true)
    expect(await validateBundle(finalDir)).toEqual([])
    expect(await leftovers(input.runsDir)).toEqual([])
  })

  it('removes the staging folder and writes nothing when a step fails midway', async () => {
    const input = await bundleInput(
      work.path,
      {},
      {
        extraFiles: [{ path: 'artifacts/missing.bin', sourcePath: join(work.path, 'does-not-exist.bin') }],
      },
    )
    await expect(writeBundle(input)).rejects.toThrow(/ENOENT/)
    expect(existsSync(join(input.runsDir, RUN_ID))).toBe(false)
    expect(await leftovers(input.runsDir)).toEqual([])
  })

  it('refuses invalid metadata before touching the disk', async () => {
    const input = await bundleInput(work.path)
    const error = await expectError(
      writeBundle({ ...input, metadata: { ...input.metadata, trialCount: 99 } }),
      'BUNDLE_INVALID',
      /metadata.json: trialCount is 99 but scores.json has 6/,
    )
    expect(error.message).toMatch(/nothing was written/)
    expect(existsSync(input.runsDir)).toBe(false)
  })

  it('refuses trial records that do not match their schema', async () => {
    const input = await bundleInput(work.path)
    const trials = input.trials.map((t, i) => (i === 2 ? { ...t, outcome: 'great' as 'passed' } : t))
    await expectError(
      writeBundle({ ...input, trials }),
      'BUNDLE_INVALID',
      /scores.json: .*trials\[2\]\.outcome/,
    )
  })

  it('refuses traces that break the bundle rules, leaving no trace of the attempt', async () => {
    const input = await bundleInput(work.path)
    const paths = input.traceFiles
    // Drop the terminal event of one trial and corrupt another trial's first line.
    const first = paths[1]!
    const text = await readFile(first, 'utf8')
    await writeFile(
      first,
      text
        .split('\n')
        .filter((l) => !l.includes('agent.terminal'))
        .join('\n'),
    )
    const second = paths[3]!
    await writeFile(second, `{oops\n${await readFile(second, 'utf8')}`)
    const error = await expectError(writeBundle(input), 'BUNDLE_INVALID')
    expect(error.message).toMatch(
      /task-0\.t1\.jsonl:1|task "task-0" trial 1 \(benchmark "toy"\) has 0 agent.terminal events/,
    )
    expect(error.message).toMatch(/task-1\.t1\.jsonl:1: not valid JSON/)
    expect(existsSync(join(input.runsDir, RUN_ID))).toBe(false)
    expect(await leftovers(input.runsDir)).toEqual([])
  })

  it('refuses report and extra file names that escape the bundle or shadow its own files', async () => {
    const input = await bundleInput(work.path)
    await expectError(
      writeBundle({ ...input, extraFiles: [{ path: '../escape.txt', data: 'x' }] }),
      'BUNDLE_INVALID',
      /\.\.\/escape\.txt: is not a relative path inside the bundle/,
    )
    await expectError(
      writeBundle({ ...input, reports: { ...input.reports, 'scores.json': '{}' } }),
      'BUNDLE_INVALID',
      /scores\.json: is written by the bundle writer itself/,
    )
    await expectError(writeBundle({ ...input, reports: {} }), 'BUNDLE_INVALID', /report\.md: is required/)
  })

  it('refuses a run id that cannot name a folder', async () => {
    const input = await bundleInput(work.path, { runId: '../evil' })
    await expectError(writeBundle(input), 'BUNDLE_INVALID', /cannot name a bundle folder/)
    await mkdir(input.runsDir, { recursive: true })
    expect(await readdir(input.runsDir)).toEqual([])
  })
})
