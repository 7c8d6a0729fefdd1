// validate-bundle against what the run registered: metadata.json's registeredTrials names every trial case the run
// had, and a bundle that lacks one of them (or holds one it never registered) is invalid; older bundles without the
// field stay valid.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateBundle, writeBundle } from '../../src/bundles/index.ts'
import type { RegisteredTrials } from '../../src/core/index.ts'
import { bundleInput, buildBundle, copyBundle, restampManifest, tempDir } from './fixtures.ts'

let work: Awaited<ReturnType<typeof tempDir>>
let pristine: string
let copies = 0

beforeAll(async () => {
  work = await tempDir('aeo-registered-')
  pristine = await buildBundle(work.path)
})
afterAll(async () => work.remove())

/** The fixture's trials: benchmark toy, tasks task-0..2, trials 0 and 1. */
function asRegistered(tasks = ['task-0', 'task-1', 'task-2'], trials = [0, 1]): RegisteredTrials[] {
  return tasks.map((taskId) => ({ benchmark: 'toy', taskId, trials }))
}

/** A copy of the valid bundle whose metadata.json gets `changes`, the manifest re-stamped to match. */
async function withMetadata(changes: Record<string, unknown>): Promise<string> {
  const dir = await copyBundle(pristine, join(work.path, `copy-${++copies}`))
  const path = join(dir, 'metadata.json')
  const metadata = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>
  await writeFile(path, JSON.stringify({ ...metadata, ...changes }))
  await restampManifest(dir)
  return dir
}

describe('validate-bundle: the trials the run registered', () => {
  it('a bundle without registeredTrials (written before it was kept) stays valid', async () => {
    expect(await validateBundle(pristine)).toEqual([])
  })

  it('finds nothing wrong when the bundle holds exactly the registered trials', async () => {
    expect(await validateBundle(await withMetadata({ registeredTrials: asRegistered() }))).toEqual([])
  })

  it('names each registered trial the bundle lacks', async () => {
    const registered = [
      ...asRegistered(),
      { benchmark: 'toy', taskId: 'same', trials: [0, 1] },
      { benchmark: 'toy', taskId: 'task-2', trials: [2] },
    ]
    expect(await validateBundle(await withMetadata({ registeredTrials: registered }))).toEqual([
      {
        check: 'registered-trials',
        file: 'metadata.json',
        message:
          'the run registered 9 trial(s), and 3 of them are not in scores.json: ' +
          'task "same" trial 0 (benchmark "toy"), task "same" trial 1 (benchmark "toy"), ' +
          'task "task-2" trial 2 (benchmark "toy")',
      },
    ])
  })

  it('names trials in scores.json that the run never registered', async () => {
    const dir = await withMetadata({ registeredTrials: asRegistered(['task-0', 'task-1'], [0, 1]) })
    expect(await validateBundle(dir)).toEqual([
      {
        check: 'registered-trials',
        file: 'metadata.json',
        message:
          'scores.json has 2 trial(s) the run never registered: ' +
          'task "task-2" trial 0 (benchmark "toy"), task "task-2" trial 1 (benchmark "toy")',
      },
    ])
  })

  it('holds a bundle naming unreported trials (a dead worker) to status interrupted, and them out of scores.json', async () => {
    const unreported = {
      files: ['evals/x.eval.ts'],
      trials: [{ benchmark: 'toy', taskId: 'died', trials: [0] }],
    }
    const registered = [...asRegistered(), { benchmark: 'toy', taskId: 'died', trials: [0] }]
    const interrupted = await withMetadata({
      registeredTrials: registered,
      status: 'interrupted',
      unreported,
    })
    expect(await validateBundle(interrupted)).toEqual([])
    expect(await validateBundle(await withMetadata({ registeredTrials: registered, unreported }))).toEqual([
      {
        check: 'registered-trials',
        file: 'metadata.json',
        message:
          'status is complete, but 1 trial(s) never reported back: task "died" trial 0 (benchmark "toy"); ' +
          'a run whose trials did not all report is interrupted',
      },
      {
        check: 'registered-trials',
        file: 'metadata.json',
        message:
          'the run registered 7 trial(s), and 1 of them are not in scores.json: task "died" trial 0 (benchmark "toy")',
      },
    ])
    const lying = { ...unreported, trials: [{ benchmark: 'toy', taskId: 'task-1', trials: [1] }] }
    expect(await validateBundle(await withMetadata({ status: 'interrupted', unreported: lying }))).toEqual([
      {
        check: 'registered-trials',
        file: 'metadata.json',
        message:
          '1 trial(s) named as never reported back are in scores.json: task "task-1" trial 1 (benchmark "toy")',
      },
    ])
  })

  it('does not hold an interrupted run to the trials it never finished', async () => {
    const registered = [...asRegistered(), { benchmark: 'toy', taskId: 'cut-short', trials: [0] }]
    const dir = await withMetadata({ registeredTrials: registered, status: 'interrupted' })
    expect(await validateBundle(dir)).toEqual([])
  })

  it('the writer still writes a bundle that lacks a registered trial: every trial that arrived is kept', async () => {
    const input = await bundleInput(join(work.path, 'writer'))
    const registered = [...asRegistered(), { benchmark: 'toy', taskId: 'lost', trials: [0] }]
    const dir = await writeBundle({
      ...input,
      runsDir: join(work.path, 'writer-runs'),
      metadata: { ...input.metadata, registeredTrials: registered },
    })
    const findings = await validateBundle(dir)
    expect(findings.map((f) => [f.check, f.message])).toEqual([
      [
        'registered-trials',
        'the run registered 7 trial(s), and 1 of them are not in scores.json: task "lost" trial 0 (benchmark "toy")',
      ],
    ])
  })
})
