// LiveRuns over staging folders written by hand, as a run and its workers write them: what is live, what its
// figures are as trials finish, and when it ends.
import { spawn } from 'node:child_process'
import { renameSync } from 'node:fs'
import { hostname } from 'node:os'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_SUMMARY_SETTINGS, summarizeTrials } from '../../../src/scorers/index.ts'
import type { LiveEvent } from '../../../src/view/api.ts'
import { LiveRuns } from '../../../src/view/live/index.ts'
import { tempDir, type TempDir } from '../../e2e/helpers.ts'
import { EventLog, HandStaging, brief, exitedPid, header } from './live-helpers.ts'
import type { TrialRecord } from '../../../src/core/index.ts'
import { scoredTrial } from '../../support/trials.ts'

let temp: TempDir
let live: LiveRuns | undefined
beforeEach(async () => {
  temp = await tempDir('aeo-live-')
})
afterEach(async () => {
  await live?.stop()
  live = undefined
  await temp.remove()
})

function start(options: { watch?: boolean } = {}): { live: LiveRuns; log: EventLog } {
  live = new LiveRuns({ runsDir: temp.path, pollMs: 50, coalesceMs: 20, ...options })
  return { live, log: new EventLog(live) }
}

const runIdOf = (e: LiveEvent) => (e.type === 'runs-changed' ? '' : e.run.runId)

describe('LiveRuns', () => {
  for (const watch of [true, false]) {
    it(`follows a run from its folder to its end: started, progress as trials finish, ended (${watch ? 'fs.watch and poll' : 'poll only'})`, async () => {
      const { live: runs, log } = start({ watch })
      await runs.start()
      const staging = new HandStaging(temp.path, 'run-a')
      await staging.writeHeader(header('run-a', { labels: { branch: 'main' } }))
      await staging.benchmark('toy')
      const started = await log.waitFor((e) => e.type === 'run-started', 'run-started')
      expect(started.type === 'run-started' && started.run).toMatchObject({
        run: 'run-a',
        runId: 'run-a',
        state: 'live',
        status: 'running',
        trials: 0,
        passed: 0,
        benchmarks: ['toy'],
        targets: ['mock-scripted'],
        labels: { branch: 'main' },
        headline: null,
      })

      const records: TrialRecord[] = []
      records.push(await staging.trial({ taskId: 'a', passed: true }, 'run-a'))
      await log.waitFor((e) => e.type === 'run-progress' && e.run.trials === 1, 'progress at 1 trial')
      records.push(await staging.trial({ taskId: 'b', passed: false }, 'run-a'))
      records.push(await staging.trial({ taskId: 'a', trial: 1, passed: false }, 'run-a'))
      await log.waitFor((e) => e.type === 'run-progress' && e.run.trials === 3, 'progress at 3 trials')
      await rm(staging.dir, { recursive: true })
      const ended = await log.waitFor((e) => e.type === 'run-ended', 'run-ended')

      const events = log.of('run-a')
      expect(events[0]!.type).toBe('run-started')
      expect(events.at(-1)!.type).toBe('run-ended')
      expect(events.filter((e) => e.type === 'run-started')).toHaveLength(1)
      const counts = events.map((e) => (e.type === 'runs-changed' ? -1 : e.run.trials))
      expect(counts, 'counts never fall').toEqual([...counts].sort((x, y) => x - y))
      expect(ended).toMatchObject({ ending: 'removed', run: { trials: 3, passed: 1, state: 'live' } })
      // The pass rate so far is the headline the bundle computes over the same trials: the mean of per-task rates.
      const summary = summarizeTrials(records, DEFAULT_SUMMARY_SETTINGS)
      expect(ended.type === 'run-ended' && ended.run.headline).toMatchObject({
        benchmark: 'toy',
        target: 'mock-scripted',
        rate: summary.headline.primary.rate,
        ci: summary.headline.primary.ci,
        tasks: 2,
        trials: 3,
        passed: 1,
      })
      expect(summary.headline.primary.rate).toBe(0.25)
      expect(ended.type === 'run-ended' && ended.run.costUsd).toBeCloseTo(0.03, 10)
      expect(runs.snapshot()).toEqual([])
    })
  }

  it('shows a run already going when it starts, with its counts so far, and a torn last line only once whole', async () => {
    const staging = new HandStaging(temp.path, 'run-b')
    await staging.writeHeader(header('run-b'))
    await staging.trial({ taskId: 'a', passed: true }, 'run-b')
    const { live: runs, log } = start()
    await runs.start()
    expect(
      runs.snapshot().map((e) => [e.type, runIdOf(e), e.type === 'run-started' && e.run.trials]),
    ).toEqual([['run-started', 'run-b', 1]])
    expect(log.events.map(brief)).toEqual(['run-started run-b 1/1'])

    const whole = JSON.stringify({
      record: { ...scoredTrial({ taskId: 'c', passed: true }), runId: 'run-b' },
    })
    await staging.append(whole.slice(0, 40))
    await staging.append(`${whole.slice(40)}\n`)
    await log.waitFor((e) => e.type === 'run-progress' && e.run.trials === 2, 'the completed line counted')
    expect(log.events.filter((e) => e.type === 'run-progress').every((e) => e.run.trials <= 2)).toBe(true)
  })

  it('coalesces progress: at most one event per run per coalescing window, the end still exact', async () => {
    // One watcher sends every change (the test's clock: trial k is appended once it has seen k − 1), one coalesces
    // over a window longer than the test.
    const eager = new LiveRuns({ runsDir: temp.path, pollMs: 20, coalesceMs: 0 })
    const eagerLog = new EventLog(eager)
    live = new LiveRuns({ runsDir: temp.path, pollMs: 20, coalesceMs: 60_000 })
    const slowLog = new EventLog(live)
    try {
      const staging = new HandStaging(temp.path, 'run-e')
      await staging.writeHeader(header('run-e'))
      await Promise.all([eager.start(), live.start()])
      await slowLog.waitFor((e) => e.type === 'run-started', 'run-started')
      for (let k = 1; k <= 5; k++) {
        await staging.trial({ taskId: `t${k}`, passed: k % 2 === 0 }, 'run-e')
        await eagerLog.waitFor((e) => e.type === 'run-progress' && e.run.trials === k, `trial ${k} seen`)
      }
      // The last trial and the folder's going, at once: the log, open since the run was found, still reads.
      staging.trialSync({ taskId: 't6', passed: true }, 'run-e')
      renameSync(staging.dir, join(temp.path, 'moved-away'))
      const ended = await slowLog.waitFor((e) => e.type === 'run-ended', 'run-ended')
      expect(ended).toMatchObject({ run: { trials: 6, passed: 3 } })
      expect(eagerLog.events.filter((e) => e.type === 'run-progress')).toHaveLength(5)
      expect(slowLog.events.map((e) => e.type)).toEqual(['run-started', 'run-ended'])
    } finally {
      await eager.stop()
    }
  })

  it("does not report a dead run's staging folder as live, nor another host's", async () => {
    const dead = new HandStaging(temp.path, 'run-dead')
    await dead.writeHeader(header('run-dead', { pid: await exitedPid() }))
    await dead.trial({ taskId: 'a', passed: true }, 'run-dead')
    const elsewhere = new HandStaging(temp.path, 'run-elsewhere')
    await elsewhere.writeHeader(header('run-elsewhere', { hostname: `not-${hostname()}` }))
    const alive = new HandStaging(temp.path, 'run-alive')
    await alive.writeHeader(header('run-alive'))
    const { live: runs, log } = start()
    await runs.start()
    // A folder that is no run at all (no header) is not one either.
    await mkdir(join(temp.path, '.staging', 'not-a-run'), { recursive: true })
    await dead.trial({ taskId: 'b', passed: true }, 'run-dead')
    await alive.trial({ taskId: 'a', passed: true }, 'run-alive')
    await log.waitFor(
      (e) => e.type === 'run-progress' && e.run.runId === 'run-alive',
      'the live run progresses',
    )
    expect(runs.live().map((r) => r.runId)).toEqual(['run-alive'])
    expect(new Set(log.events.map(runIdOf))).toEqual(new Set(['run-alive']))
  })

  it('ends a run whose process died, its folder left for recover', async () => {
    const worker = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
    const exited = new Promise((resolve) => worker.once('close', resolve))
    try {
      const staging = new HandStaging(temp.path, 'run-c')
      await staging.writeHeader(header('run-c', { pid: worker.pid! }))
      const { live: runs, log } = start()
      await runs.start()
      await staging.trial({ taskId: 'a', passed: false }, 'run-c')
      await log.waitFor((e) => e.type === 'run-progress', 'progress')
      worker.kill('SIGKILL')
      await exited
      const ended = await log.waitFor((e) => e.type === 'run-ended', 'run-ended')
      expect(ended).toMatchObject({ ending: 'died', run: { trials: 1, passed: 0 } })
      expect(runs.live()).toEqual([])
    } finally {
      worker.kill('SIGKILL')
    }
  })

  it('releases everything on stop: no event after it, listeners may leave', async () => {
    const { live: runs, log } = start()
    await runs.start()
    await runs.stop()
    const staging = new HandStaging(temp.path, 'run-d')
    await staging.writeHeader(header('run-d'))
    await staging.trial({ taskId: 'a', passed: true }, 'run-d')
    // A watcher started now sees the run (and has polled a few times since); the stopped one said nothing.
    const fresh = new LiveRuns({ runsDir: temp.path, pollMs: 50 })
    const freshLog = new EventLog(fresh)
    try {
      await fresh.start()
      await freshLog.waitFor((e) => e.type === 'run-started', 'the fresh watcher sees the run')
      await staging.trial({ taskId: 'b', passed: true }, 'run-d')
      await freshLog.waitFor((e) => e.type === 'run-progress', 'the fresh watcher sees it progress')
    } finally {
      await fresh.stop()
    }
    expect(log.events).toEqual([])
    log.unsubscribe()
    expect(runs.listenerCount).toBe(0)
  })
})
