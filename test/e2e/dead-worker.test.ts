// SIGKILL of the forks-pool worker alone (what the OOM killer does): the Vitest main process lives on, reports the
// worker's file as failed and ends the run. The bundle it writes must not pass for a whole run, and the partial
// traces of the trials the worker was running must stay in staging.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.ts'
import type { CliIO } from '../../src/cli/io.ts'
import {
  VitestProcess,
  bundleDirs,
  createTempProject,
  finishedStagedTraces,
  stagedTraces,
  listDir,
  pollUntil,
  slowSuiteEval,
  readMetadata,
  readScores,
  runVitest,
  tail,
  validateWithCli,
  type TempProject,
} from './helpers.ts'

const TASK_COUNT = 40
const FINISHED_BEFORE_KILL = 6

// Each trial takes 200–360 ms (four delayed steps, staggered by task), four in flight: the whole run takes ~3 s.
const slowEval = slowSuiteEval(TASK_COUNT, 50)

const allTasks = Array.from({ length: TASK_COUNT }, (_, i) => `slow-${String(i).padStart(2, '0')}`)

/** The direct children of `pid` (every thread's), from /proc. */
async function childPids(pid: number): Promise<number[]> {
  const pids: number[] = []
  for (const task of await listDir(`/proc/${pid}/task`)) {
    const text = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '')
    for (const word of text.split(/\s+/)) if (word !== '') pids.push(Number(word))
  }
  return pids
}

/** The forks-pool worker among them: the Node process running Vitest's forks entry (esbuild is a child too). */
async function forksWorker(pid: number): Promise<number | undefined> {
  for (const child of await childPids(pid)) {
    const cmdline = await readFile(`/proc/${child}/cmdline`, 'utf8').catch(() => '')
    if (cmdline.split('\0').some((arg) => arg.endsWith(join('vitest', 'dist', 'workers', 'forks.js'))))
      return child
  }
  return undefined
}

async function cli(args: readonly string[]): Promise<{ code: number; output: string }> {
  const lines: string[] = []
  const io: CliIO = { out: (line) => void lines.push(line), err: (line) => void lines.push(line) }
  const code = await main(args, io)
  return { code, output: lines.join('\n') }
}

let project: TempProject
beforeAll(async () => {
  project = await createTempProject(
    { 'evals/slow.eval.ts': slowEval },
    { pluginOptions: '{ maxConcurrency: 4 }' },
  )
})
afterAll(async () => project?.remove())

describe('SIGKILL of the Vitest worker alone', () => {
  it('seals an interrupted bundle naming the missing trials, keeps staging, and resume finishes the run', async () => {
    const proc = new VitestProcess(['run', '--project', 'evals', '--pool', 'forks'], {
      cwd: project.root,
      runsDir: project.runsDir,
    })
    try {
      const worker = await pollUntil(
        async () => {
          if (proc.child.exitCode !== null)
            throw new Error(`vitest exited (${proc.child.exitCode}) before the kill:\n${tail(proc.output)}`)
          // Killed with trials in flight: at least one trace begun and not yet ended.
          const finished = await finishedStagedTraces(project.runsDir)
          const begun = await stagedTraces(project.runsDir)
          if (finished.length < FINISHED_BEFORE_KILL || begun.length <= finished.length) return undefined
          return forksWorker(proc.pid)
        },
        {
          timeoutMs: 30_000,
          intervalMs: 25,
          describe: () => `a worker and ${FINISHED_BEFORE_KILL} finished traces\n${tail(proc.output)}`,
        },
      )
      process.kill(worker, 'SIGKILL')
      const exit = await proc.waitForExit(30_000)
      // The main process lived on and ended the run itself.
      expect(exit.signal, tail(exit.output)).toBeNull()
      expect(exit.code, tail(exit.output)).toBe(1)
    } finally {
      proc.killGroup('SIGKILL')
      await proc.exited
    }

    const dirs = await bundleDirs(project.runsDir)
    expect(dirs, tail(proc.output)).toHaveLength(1)
    const bundle = dirs[0]!
    const metadata = await readMetadata(bundle)
    const scores = await readScores(bundle)
    const bundled = scores.trials.map((t) => t.taskId)
    expect(metadata.status, tail(proc.output)).toBe('interrupted')
    expect(bundled.length).toBeGreaterThanOrEqual(FINISHED_BEFORE_KILL)
    expect(bundled.length).toBeLessThan(TASK_COUNT)

    // What never reported is named: the file, and each trial, which with the bundled ones make up the run.
    const unreported = metadata.unreported
    expect(unreported?.files).toEqual(['evals/slow.eval.ts'])
    const missing = (unreported?.trials ?? []).flatMap((t) => t.trials.map((n) => `${t.taskId} #${n}`))
    expect(missing.length).toBe(TASK_COUNT - bundled.length)
    expect([...bundled.map((id) => `${id} #0`), ...missing].sort()).toEqual(allTasks.map((id) => `${id} #0`))
    expect(proc.output).toContain(`${missing.length} trial(s) never reported back`)

    // Staging stays, with the traces the in-flight trials left; none of them reached the bundle.
    const staged = await listDir(join(project.runsDir, '.staging'))
    expect(staged).toHaveLength(1)
    const stagingDir = join(project.runsDir, '.staging', staged[0]!)
    const traced = (await stagedTraces(project.runsDir, stagingDir)).map((t) => t.taskId)
    const partial = traced.filter((id) => !bundled.includes(id))
    expect(partial.length).toBeGreaterThan(0)
    for (const id of partial) expect(missing).toContain(`${id} #0`)

    // The interrupted bundle is consistent as what it says it is.
    const validated = await validateWithCli(bundle)
    expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)

    // recover does not call the staging folder left over: it points at the resume that finishes the run.
    const recovered = await cli(['recover', stagingDir])
    expect(recovered.code).toBe(1)
    expect(recovered.output).toContain('interrupted')
    expect(recovered.output).toContain(`AGENTEVALOPS_RESUME=`)
    expect(recovered.output).not.toContain('can be deleted')
    expect(await listDir(join(project.runsDir, '.staging'))).toEqual(staged)

    // The resume runs only the missing trials; its bundle is complete and the old staging folder goes.
    const resumed = await runVitest(['run', '--project', 'evals'], {
      cwd: project.root,
      runsDir: project.runsDir,
      env: { AGENTEVALOPS_RESUME: bundle },
      timeoutMs: 60_000,
    })
    expect(resumed.code, tail(resumed.output)).toBe(0)
    expect(resumed.output).toContain(`keeps the traces of run ${metadata.runId}`)
    const after = (await bundleDirs(project.runsDir)).filter((d) => d !== bundle)
    expect(after).toHaveLength(1)
    const final = await readScores(after[0]!)
    expect((await readMetadata(after[0]!)).status).toBe('complete')
    expect(final.trials.map((t) => t.taskId).sort()).toEqual(allTasks)
    expect(final.trials.filter((t) => t.reusedFrom !== null)).toHaveLength(bundled.length)
    expect(await listDir(join(project.runsDir, '.staging'))).toEqual([])
  }, 120_000)
})
