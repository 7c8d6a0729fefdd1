// SIGKILL in the middle of `vitest run`: no reporter hook runs, so no bundle; what must survive is every finished
// trial's trace in the staging folder (its worker's log), each one complete and well formed.
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseTraceJsonl } from '../../src/stores/index.ts'
import {
  VitestProcess,
  bundleDirs,
  createTempProject,
  listDir,
  pollUntil,
  slowSuiteEval,
  stagedLogFiles,
  stagedTraces,
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
          const complete = (await stagedTraces(project.runsDir)).filter((t) => t.ended).length
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
      const files = await stagedLogFiles(project.runsDir)
      const before = await sizes(files)
      await new Promise((resolve) => setTimeout(resolve, 400))
      expect(await stagedLogFiles(project.runsDir)).toEqual(files)
      expect(await sizes(files)).toEqual(before)

      // The run never ended: no bundle folder; its staging folder is all there is.
      expect(await bundleDirs(project.runsDir)).toEqual([])
      const staged = await listDir(join(project.runsDir, '.staging'))
      expect(staged).toHaveLength(1)
      const runId = staged[0]!

      let complete = 0
      for (const { text, taskId, ended } of await stagedTraces(project.runsDir)) {
        const file = `${taskId} #0`
        if (ended) {
          complete++
          // Strict: every line whole and a valid event.
          const { events, truncatedTail } = parseTraceJsonl(text, { file })
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
          const { events } = parseTraceJsonl(text, { file, tolerateTruncatedTail: true })
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
