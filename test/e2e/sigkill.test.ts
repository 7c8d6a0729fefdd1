// SIGKILL in the middle of `vitest run`: no reporter hook runs, so no bundle; what must survive is every finished
// trial's trace in the staging folder, each one complete and well formed.
import { readFile, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readTraceFile } from '../../src/stores/index.ts'
import {
  VitestProcess,
  bundleDirs,
  createTempProject,
  listDir,
  pollUntil,
  slowSuiteEval,
  tail,
  type TempProject,
} from './helpers.ts'

const TASK_COUNT = 40
const COMPLETE_BEFORE_KILL = 6

// Each trial takes 160–320 ms (four delayed steps), four in flight: the whole run would take ~2.5 s.
const slowEval = slowSuiteEval(TASK_COUNT, 40)

let project: TempProject
beforeAll(async () => {
  project = await createTempProject(
    { 'evals/slow.eval.ts': slowEval },
    { pluginOptions: '{ maxConcurrency: 4 }' },
  )
})
afterAll(async () => project?.remove())

/** Every trace file below the staging folder of the runs dir. */
async function stagedTraceFiles(runsDir: string): Promise<string[]> {
  const staging = join(runsDir, '.staging')
  const files: string[] = []
  for (const runId of await listDir(staging)) {
    const traces = join(staging, runId, 'traces')
    for (const bench of await listDir(traces)) {
      for (const name of await listDir(join(traces, bench))) {
        if (name.endsWith('.jsonl')) files.push(join(traces, bench, name))
      }
    }
  }
  return files
}

/** A trace is complete once a full (newline-terminated) line holds its terminal event. */
function isComplete(text: string): boolean {
  return text
    .split('\n')
    .slice(0, -1)
    .some((line) => line.includes('"kind":"agent.terminal"'))
}

async function sizes(files: readonly string[]): Promise<number[]> {
  return Promise.all(files.map(async (f) => (await stat(f)).size))
}

describe('SIGKILL of vitest run midway', () => {
  it('leaves no bundle, but the staging folder with every finished trace intact', async () => {
    const proc = new VitestProcess(['run', '--project', 'evals'], {
      cwd: project.root,
      runsDir: project.runsDir,
    })
    try {
      const completeAtKill = await pollUntil(
        async () => {
          if (proc.child.exitCode !== null) {
            throw new Error(`vitest exited (${proc.child.exitCode}) before the kill:\n${tail(proc.output)}`)
          }
          const files = await stagedTraceFiles(project.runsDir)
          const texts = await Promise.all(files.map((f) => readFile(f, 'utf8')))
          const complete = texts.filter(isComplete).length
          return complete >= COMPLETE_BEFORE_KILL ? complete : undefined
        },
        {
          timeoutMs: 30_000,
          intervalMs: 25,
          describe: () => `${COMPLETE_BEFORE_KILL} complete traces\n${tail(proc.output)}`,
        },
      )
      proc.killGroup('SIGKILL')
      const exit = await proc.exited
      expect(exit.signal).toBe('SIGKILL')
      expect(completeAtKill).toBeLessThan(TASK_COUNT)

      // The whole group died: the forks worker wrote nothing more after the kill.
      const files = await stagedTraceFiles(project.runsDir)
      const before = await sizes(files)
      await new Promise((resolve) => setTimeout(resolve, 400))
      expect(await stagedTraceFiles(project.runsDir)).toEqual(files)
      expect(await sizes(files)).toEqual(before)

      // The run never ended: no bundle folder; its staging folder is all there is.
      expect(await bundleDirs(project.runsDir)).toEqual([])
      const staged = await listDir(join(project.runsDir, '.staging'))
      expect(staged).toHaveLength(1)
      const runId = staged[0]!

      let complete = 0
      for (const file of files) {
        const text = await readFile(file, 'utf8')
        const taskId = basename(file).split('.')[0]!
        if (isComplete(text)) {
          complete++
          // Strict: every line whole and a valid event.
          const { events, truncatedTail } = await readTraceFile(file)
          expect(truncatedTail).toBe(false)
          expect(
            events.map((e) => e.step),
            file,
          ).toEqual(events.map((_, i) => i))
          expect(
            events.filter((e) => e.kind === 'agent.terminal'),
            file,
          ).toHaveLength(1)
          expect(events.find((e) => e.kind === 'agent.terminal')?.payload).toMatchObject({
            terminatedBy: 'completed',
            success: true,
          })
          expect(new Set(events.map((e) => `${e.runId} ${e.taskId} ${e.trial}`))).toEqual(
            new Set([`${runId} ${taskId} 0`]),
          )
        } else {
          // Cut short: what is there parses once a torn last line is dropped.
          const { events } = await readTraceFile(file, { tolerateTruncatedTail: true })
          expect(events.some((e) => e.kind === 'agent.terminal')).toBe(false)
          expect(
            events.map((e) => e.step),
            file,
          ).toEqual(events.map((_, i) => i))
        }
      }
      expect(complete).toBeGreaterThanOrEqual(COMPLETE_BEFORE_KILL)
      expect(complete).toBeLessThan(TASK_COUNT)
    } finally {
      proc.killGroup('SIGKILL')
      await proc.exited
    }
  }, 45_000)
})
