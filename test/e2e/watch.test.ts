// `vitest watch --project evals` on a throwaway project: every rerun after an edit is a run of its own, with its
// own run id and its own valid bundle.
import { appendFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  EVAL_IMPORTS,
  VitestProcess,
  bundleDirs,
  createTempProject,
  pollUntil,
  readBundleEvents,
  readScores,
  tail,
  validateWithCli,
  type TempProject,
} from './helpers.ts'

const EVAL_FILE = 'evals/small.eval.ts'
const TASKS = ['arith-add', 'capital-france', 'calc-multiply']

const smallEval = `${EVAL_IMPORTS}

const toy = toyBenchmark()
evalBenchmark({
  benchmark: {
    id: toy.id,
    version: toy.version,
    listTasks: () => toy.listTasks({ id: ${JSON.stringify(TASKS)} }),
    info: () => toy.info(),
  },
  runner: mockRunner({ scripts: toyScripts }),
  evaluators: [matchesExpected()],
})
`

let project: TempProject
beforeAll(async () => {
  project = await createTempProject({ [EVAL_FILE]: smallEval })
})
afterAll(async () => project?.remove())

describe('vitest watch --project evals', () => {
  it('writes a bundle for the first run and another, with a new run id, for the rerun after an edit', async () => {
    const watcher = new VitestProcess(['watch', '--project', 'evals'], {
      cwd: project.root,
      runsDir: project.runsDir,
    })
    const context = () => tail(watcher.output)
    const waitForBundles = (n: number, timeoutMs = 20_000) =>
      pollUntil(
        async () => {
          // A bundle folder counts once it validates: the writer may still be filling it.
          const dirs = await bundleDirs(project.runsDir)
          const done = await Promise.all(dirs.map((d) => validateWithCli(d).then((v) => v.code === 0)))
          return dirs.length >= n && done.every(Boolean) ? dirs : undefined
        },
        { timeoutMs, intervalMs: 100, describe: () => `${n} bundle(s) in watch mode\n${context()}` },
      )
    try {
      const [first] = await waitForBundles(1)
      expect(watcher.child.exitCode, 'the watcher keeps running after the first run').toBeNull()

      // Edit the eval file; should the watcher miss an edit (seen once on a cold cache), edit again, bounded.
      let edits = 0
      let dirs: string[] | undefined
      while (!dirs && edits < 3) {
        await appendFile(join(project.root, EVAL_FILE), `\n// edit ${++edits} by the e2e test\n`)
        dirs = await waitForBundles(2, 7_000).catch(() => undefined)
      }
      if (!dirs) throw new Error(`no rerun after ${edits} edits of ${EVAL_FILE}\n${context()}`)
      expect(dirs.length).toBeGreaterThanOrEqual(2)
      expect(dirs.length).toBeLessThanOrEqual(1 + edits)
      expect(dirs).toContain(first)
      // Folder names are run ids: a rerun never reuses (or overwrites) the first run's bundle.
      expect(new Set(dirs.map((d) => basename(d))).size).toBe(dirs.length)

      for (const dir of dirs) {
        const validated = await validateWithCli(dir)
        expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)
        const scores = await readScores(dir)
        expect(new Set((await readBundleEvents(dir)).map((e) => e.runId))).toEqual(new Set([basename(dir)]))
        expect(scores.trials.map((t) => t.taskId).sort()).toEqual([...TASKS].sort())
        expect(scores.trials.every((t) => t.passed)).toBe(true)
        // Each bundle holds only its own run's events: nothing leaks from the other run.
        const events = await readBundleEvents(dir)
        expect(new Set(events.map((e) => e.runId))).toEqual(new Set([basename(dir)]))
      }
      expect(watcher.stdout).toMatch(/RERUN/)
      expect(watcher.child.exitCode, 'still watching').toBeNull()
    } finally {
      watcher.killGroup()
      await watcher.exited
    }
  }, 50_000)
})
