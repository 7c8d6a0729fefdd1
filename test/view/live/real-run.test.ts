// LiveRuns watching real Vitest runs (child processes of a throwaway project): a `vitest run --project evals` whose
// trials finish over a couple of seconds, and a `vitest watch` whose rerun is a run of its own.
import { readFileSync, readdirSync } from 'node:fs'
import { appendFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { LiveEvent, RunEntry } from '../../../src/view/api.ts'
import { LiveRuns } from '../../../src/view/live/index.ts'
import {
  EVAL_IMPORTS,
  VitestProcess,
  bundleDirs,
  createTempProject,
  readScores,
  tail,
  type TempProject,
} from '../../e2e/helpers.ts'
import { EventLog, brief } from './live-helpers.ts'

const EVAL_FILE = 'evals/live.eval.ts'
const TASKS = 8
/** Tasks that answer wrong (as the eval file below says): the pass rate is neither 0 nor 1. */
const wrong = (i: number) => i % 3 === 0

/** Slow scripted trials (three steps of `delayMs`), two at a time: they finish one after another over ~2 s. */
function liveEval(delayMs: number): string {
  return `${EVAL_IMPORTS}

const tasks: TaskSpec[] = Array.from({ length: ${TASKS} }, (_, i) =>
  defineTask({ id: 'live-' + String(i).padStart(2, '0'), benchmark: 'live', prompt: 'Say yes.', expected: 'yes' }),
)
const benchmark: BenchmarkAdapter = {
  id: 'live',
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: 'live', version: '1', datasetChecksum: 'e2e' }),
}
evalBenchmark({
  benchmark,
  runner: mockRunner({
    scripts: (task) => ({
      steps: [
        { kind: 'plan', text: 'start ' + task.id, delayMs: ${delayMs} },
        { kind: 'model_call', text: 'thinking', tokens: 10, delayMs: ${delayMs} },
        { kind: 'final_answer', answer: Number(task.id.slice(5)) % 3 === 0 ? 'no' : 'yes', costUsd: 0.001, delayMs: ${delayMs} },
      ],
    }),
  }),
  evaluators: [matchesExpected()],
  gate: { minPassRate: 0 },
})
`
}

/** Finished trials in the run's staging logs right now (their record lines), or null once the folder is gone. */
function recordsOnDisk(runsDir: string, runId: string): number | null {
  const logs = join(runsDir, '.staging', runId, 'logs')
  try {
    let count = 0
    for (const name of readdirSync(logs))
      count += readFileSync(join(logs, name), 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('{"record":')).length
    return count
  } catch {
    return null
  }
}

let project: TempProject
let live: LiveRuns | undefined
beforeAll(async () => {
  project = await createTempProject({ [EVAL_FILE]: liveEval(150) })
})
afterEach(async () => {
  await live?.stop()
  live = undefined
})
afterAll(async () => project?.remove())

function runOf(event: LiveEvent): RunEntry {
  if (event.type === 'runs-changed') throw new Error('no run in runs-changed')
  return event.run
}

describe('live view of real runs', () => {
  it('follows a vitest run: started, progress as trials finish (counts rising), ended with the bundle’s figures', async () => {
    live = new LiveRuns({ runsDir: project.runsDir })
    // What the logs held when each progress event was sent, checked as it arrives: an event never runs ahead.
    const ahead: string[] = []
    live.subscribe((event) => {
      if (event.type !== 'run-progress') return
      const onDisk = recordsOnDisk(project.runsDir, event.run.runId)
      if (onDisk !== null && event.run.trials > onDisk) ahead.push(`${brief(event)} with ${onDisk} on disk`)
    })
    const log = new EventLog(live)
    await live.start()
    const vitest = new VitestProcess(['run', '--project', 'evals'], {
      cwd: project.root,
      runsDir: project.runsDir,
      env: { AGENTEVALOPS_MAX_CONCURRENCY: '2' },
    })
    let result
    try {
      result = await vitest.waitForExit(60_000)
    } finally {
      vitest.killGroup()
    }
    expect(result.code, tail(result.output)).toBe(0)
    const ended = await log.waitFor((e) => e.type === 'run-ended', 'run-ended')

    const [bundle, ...others] = await bundleDirs(project.runsDir)
    expect(others).toEqual([])
    const runId = basename(bundle!)
    const events = log.of(runId)
    expect(log.events.length, 'no event of another run').toBe(events.length)
    expect(events.map((e) => e.type)).toEqual([
      'run-started',
      ...events.slice(1, -1).map(() => 'run-progress'),
      'run-ended',
    ])
    expect(events.slice(1, -1).every((e) => e.type === 'run-progress')).toBe(true)
    const progress = events.filter((e) => e.type === 'run-progress').map((e) => runOf(e).trials)
    expect(progress, 'each progress event brings new trials').toEqual(
      [...new Set(progress)].sort((x, y) => x - y),
    )
    // Trials as they finish, not all at the end: several counts short of the whole run were shown.
    expect(progress.filter((n) => n > 0 && n < TASKS).length).toBeGreaterThanOrEqual(2)
    expect(ahead).toEqual([])
    expect(runOf(events[0]!)).toMatchObject({ run: runId, state: 'live', status: 'running' })

    const scores = await readScores(bundle!)
    expect(ended).toMatchObject({ type: 'run-ended', ending: 'sealed' })
    const last = runOf(ended)
    expect(last.trials).toBe(scores.trials.length)
    expect(last.passed).toBe(scores.trials.filter((t) => t.passed).length)
    expect(last.trials).toBe(TASKS)
    expect(last.passed).toBe(Array.from({ length: TASKS }, (_, i) => i).filter((i) => !wrong(i)).length)
    expect(last.headline?.rate).toBe(scores.summary.headline.primary.rate)
    expect(last.headline?.ci).toEqual(scores.summary.headline.primary.ci)
    expect(last).toMatchObject({ benchmarks: ['live'], targets: ['mock-scripted'] })
    expect(live.live()).toEqual([])
  }, 90_000)

  it('shows a watch rerun as a new run: a second run-started with another run id', async () => {
    live = new LiveRuns({ runsDir: project.runsDir })
    const log = new EventLog(live)
    await live.start()
    const before = new Set((await bundleDirs(project.runsDir)).map((d) => basename(d)))
    const watcher = new VitestProcess(['watch', '--project', 'evals'], {
      cwd: project.root,
      runsDir: project.runsDir,
      env: { AGENTEVALOPS_MAX_CONCURRENCY: '4' },
    })
    const context = () => `${log.events.map(brief).join('\n')}\n${tail(watcher.output)}`
    const ends = () => log.events.filter((e) => e.type === 'run-ended')
    try {
      await log.waitFor((e) => e.type === 'run-ended', `the first run ends\n${context()}`, 40_000)
      expect(watcher.child.exitCode, 'still watching').toBeNull()
      // Should the watcher miss an edit (seen once on a cold cache), edit again, bounded.
      let edits = 0
      while (ends().length < 2 && edits < 3) {
        await appendFile(join(project.root, EVAL_FILE), `\n// edit ${++edits} by the live test\n`)
        await log
          .waitFor(() => ends().length >= 2, `a rerun ends\n${context()}`, 15_000)
          .catch(() => undefined)
      }
      expect(ends().length, context()).toBeGreaterThanOrEqual(2)
    } finally {
      watcher.killGroup()
      await watcher.exited
    }
    const started = log.events.filter((e) => e.type === 'run-started').map((e) => runOf(e).runId)
    expect(started.length).toBeGreaterThanOrEqual(2)
    expect(new Set(started).size, 'each rerun has its own run id').toBe(started.length)
    for (const runId of started.slice(0, 2)) {
      const events = log.of(runId)
      expect(events[0]!.type).toBe('run-started')
      expect(events.at(-1)).toMatchObject({ type: 'run-ended', ending: 'sealed', run: { trials: TASKS } })
    }
    // The live runs are the bundles the watcher sealed.
    const sealed = (await bundleDirs(project.runsDir)).map((d) => basename(d)).filter((n) => !before.has(n))
    expect(new Set(sealed)).toEqual(new Set(ends().map((e) => runOf(e).runId)))
  }, 120_000)
})
