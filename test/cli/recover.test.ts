import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, open, readdir, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { unrecoveredStagings } from '../../reporters/staging.ts'
import type { TrialRecord } from '../../src/core/index.ts'
import { makeEvents, makeTrials, RUN_ID, tempDir } from '../bundles/fixtures.ts'
import { readBundle, validateBundle } from '../../src/bundles/index.ts'
import { runCli } from './helpers.ts'
import { DEAD_PID, stageRun, stageRunInLogs } from './recover-staging.ts'

let work: { path: string; remove: () => Promise<void> }
beforeAll(async () => {
  work = await tempDir('aeo-recover-cli-')
})
afterAll(async () => {
  await work.remove()
})
afterEach(() => {
  vi.restoreAllMocks()
})

let folders = 0
/** A fresh runs folder with one staging folder in it, as a killed run leaves it. */
async function killedRun(
  finished: readonly TrialRecord[],
  unfinished: readonly TrialRecord[] = [],
): Promise<{ runs: string; staging: string }> {
  const runs = join(work.path, `runs-${folders++}`)
  const staging = join(runs, '.staging', RUN_ID)
  await stageRun(staging, finished, unfinished)
  return { runs, staging }
}

const cancelledTrial = (t: TrialRecord): TrialRecord => ({
  ...t,
  outcome: 'interrupted',
  passed: false,
  result: t.result && { ...t.result, success: false, terminatedBy: 'interrupted' },
  scores: [],
  verdicts: [],
})

describe('agentevalops recover', () => {
  it('says there is nothing to recover in a runs folder without staging folders (exit 0)', async () => {
    const r = await runCli('recover', work.path)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^nothing to recover in /)
  })

  it('leaves an empty staging folder alone and says so (exit 1)', async () => {
    const staging = join(work.path, '.staging', 'empty')
    await mkdir(join(staging, 'traces'), { recursive: true })
    const r = await runCli('recover', staging)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('holds no trial to recover; it is left as it is')
  })

  it('reports a missing folder (exit 1) and bad arguments (exit 2)', async () => {
    expect((await runCli('recover', join(work.path, 'nowhere'))).code).toBe(1)
    expect((await runCli('recover')).code).toBe(2)
    expect((await runCli('recover', 'a', 'b')).code).toBe(2)
  })

  it('counts a trial the run cancelled (a record with outcome interrupted) apart from the finished ones', async () => {
    const [a, b, c, d] = makeTrials()
    const { staging } = await killedRun([a!, b!, cancelledTrial(c!)], [d!])
    const r = await runCli('recover', staging)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(
      `recovered run ${RUN_ID}: 2 finished trial(s), 1 cancelled, 1 cut short (interrupted)`,
    )
  })

  it('on a full disk says so in one line, keeps the staging folder and leaves no half-written bundle', async () => {
    const { runs, staging } = await killedRun(makeTrials())
    const probe = await open(join(work.path, 'probe'), 'w')
    const handle = Object.getPrototypeOf(probe) as { writeFile: (...args: unknown[]) => Promise<void> }
    await probe.close()
    vi.spyOn(handle, 'writeFile').mockRejectedValue(
      Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        errno: -28,
        syscall: 'write',
      }),
    )
    const r = await runCli('recover', staging)
    vi.restoreAllMocks()
    expect(r.code).toBe(1)
    expect(r.stderr.split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/^agentevalops recover: cannot write the bundle of run .* ENOSPC: no space left/)
    expect(r.stderr).toContain(`${staging} is kept as it was`)
    expect(r.stderr).not.toContain('    at ')
    expect(existsSync(join(staging, 'run.json'))).toBe(true)
    expect((await readdir(runs)).sort()).toEqual(['.staging'])
    // Once there is room again, the same command recovers it.
    expect((await runCli('recover', staging)).code).toBe(0)
  })

  it('removes the writer staging folders of dead processes when it next writes a bundle, not those of live ones', async () => {
    const { runs, staging } = await killedRun(makeTrials())
    const tag = createHash('sha256').update(hostname()).digest('hex').slice(0, 8)
    const dead = join(runs, `.staging-${RUN_ID}-${tag}-${DEAD_PID}-0123456789ab`)
    const live = join(runs, `.staging-${RUN_ID}-${tag}-${process.pid}-0123456789ab`)
    for (const dir of [dead, live]) {
      await mkdir(dir)
      await writeFile(join(dir, 'traces.jsonl'), '{"half":')
    }
    expect((await runCli('recover', staging)).code).toBe(0)
    expect(existsSync(dead)).toBe(false)
    expect(existsSync(live)).toBe(true)
  })

  it('takes a staging folder whose bundle was already sealed (killed after the rename) as done, and removes it', async () => {
    const { runs, staging } = await killedRun(makeTrials())
    // --keep leaves the folder exactly as a kill between the bundle's rename and the staging's removal does.
    expect((await runCli('recover', staging, '--keep')).code).toBe(0)
    expect(existsSync(join(runs, RUN_ID, 'manifest.json'))).toBe(true)

    expect(await unrecoveredStagings(runs, '')).toEqual([])
    expect(existsSync(staging)).toBe(false)
    const r = await runCli('recover', runs)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^nothing to recover in /)
  })

  it('keeps a leftover staging folder that holds a trial the bundle of its run id does not', async () => {
    const [a, b, c] = makeTrials()
    const { runs, staging } = await killedRun([a!, b!])
    expect((await runCli('recover', staging, '--keep')).code).toBe(0)
    // A later run under the same fixed run id, killed: a trial the bundle never saw.
    await stageRun(staging, [a!, b!], [c!])
    expect((await unrecoveredStagings(runs, '')).map((s) => s.dir)).toEqual([staging])
    expect(existsSync(staging)).toBe(true)
  })

  it('recovers a staging folder of worker logs: finished trials as they were, unfinished ones over their events', async () => {
    const trials = makeTrials()
    const [cut, ...finished] = trials
    const runs = join(work.path, `runs-${folders++}`)
    const staging = join(runs, '.staging', RUN_ID)
    await stageRunInLogs(staging, finished, [cut!])
    expect((await unrecoveredStagings(runs, '')).map((s) => [s.dir, s.records])).toEqual([
      [staging, finished.length],
    ])
    const r = await runCli('recover', staging)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`${finished.length} finished trial(s), 0 cancelled, 1 cut short (interrupted)`)
    expect(r.stderr).toContain('dropped a torn last line')
    const bundle = join(runs, RUN_ID)
    expect(await validateBundle(bundle)).toEqual([])
    const read = await readBundle(bundle)
    const byId = (t: Pick<TrialRecord, 'taskId' | 'trial'>) => `${t.taskId} #${t.trial}`
    const recovered = new Map(read.scores.trials.map((t) => [byId(t), t]))
    for (const t of finished)
      expect(recovered.get(byId(t))).toMatchObject({ outcome: t.outcome, scores: t.scores })
    expect(recovered.get(byId(cut!))?.outcome).toBe('interrupted')
    expect(
      read.events.filter((e) => e.taskId === finished[0]!.taskId && e.trial === finished[0]!.trial),
    ).toEqual(makeEvents(finished[0]!))
    expect(existsSync(staging)).toBe(false)
  })

  it("keeps the shard and run group of a shard's run, so its bundle still merges with the other shards", async () => {
    const [cut, ...finished] = makeTrials()
    const runs = join(work.path, `runs-${folders++}`)
    const staging = join(runs, '.staging', RUN_ID)
    const runGroup = '0123456789abcdef'
    await stageRunInLogs(staging, finished, [cut!], { shard: { index: 2, count: 3 }, runGroup })
    const r = await runCli('recover', staging)
    expect(r.code, r.stderr).toBe(0)
    const bundle = join(runs, RUN_ID)
    expect(await validateBundle(bundle)).toEqual([])
    expect((await readBundle(bundle)).metadata).toMatchObject({ shard: { index: 2, count: 3 }, runGroup })
  })
})
