// Run ids and paths come from a staging folder's files and names: `recover` and the bundle reporter's warning about
// a run that ended without its bundle show them escaped, so an ANSI escape or a newline in them cannot recolour the
// terminal or forge a line of ours.
import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestCase, Vitest } from 'vitest/node'
import { BundleReporter } from '../../reporters/bundle-reporter.ts'
import { RUN_HEADER_FILE, workerLogPath } from '../../src/core/index.ts'
import { terminalText } from '../../src/reports/escape-terminal.ts'
import { makeTrials, tempDir } from '../bundles/fixtures.ts'
import { runCli } from './helpers.ts'
import { DEAD_PID, stageRun, stageRunInLogs } from './recover-staging.ts'

/** A run id (also the staging folder's name) that recolours the terminal and starts a forged line. */
const HOSTILE_RUN_ID = 'run-\u001b[31mred\u001b]0;retitled\u0007\nagentevalops: all 100 trials passed'
const RAW_CONTROL = /[\u0000-\u001f\u007f]/

let work: Awaited<ReturnType<typeof tempDir>>
let folders = 0
beforeAll(async () => {
  work = await tempDir('aeo-recover-escaping-')
})
afterAll(async () => work.remove())

/** A runs folder under `root` holding the staging folder of a killed run whose header names HOSTILE_RUN_ID. */
async function killedHostileRun(root: string): Promise<{ runs: string; staging: string }> {
  const runs = join(root, 'runs')
  const staging = join(runs, '.staging', HOSTILE_RUN_ID)
  await stageRun(staging, makeTrials({ runId: HOSTILE_RUN_ID }))
  const headerPath = join(staging, RUN_HEADER_FILE)
  const header = JSON.parse(await readFile(headerPath, 'utf8')) as Record<string, unknown>
  await writeFile(headerPath, JSON.stringify({ ...header, runId: HOSTILE_RUN_ID }))
  return { runs, staging }
}

/** The parts of Vitest the bundle reporter touches when no eval project runs, recording what it logs. */
function fakeVitest(root: string) {
  const warnings: string[] = []
  const errors: string[] = []
  const fake = {
    config: { root },
    projects: [],
    logger: {
      log: () => undefined,
      warn: (m: string) => warnings.push(m),
      error: (m: string) => errors.push(m),
    },
    version: '4.1.12-fake',
  }
  return { vitest: fake as unknown as Vitest, warnings, errors }
}

describe('run ids and paths from a staging folder, on the terminal', () => {
  it('recover prints the run id and the bundle path escaped, on one line', async () => {
    const { runs, staging } = await killedHostileRun(join(work.path, `r${folders++}`))
    const r = await runCli('recover', staging)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const bundle = relative(process.cwd(), join(runs, HOSTILE_RUN_ID))
    expect(r.stdout).toBe(
      `recovered run ${terminalText(HOSTILE_RUN_ID)}: 6 finished trial(s), 0 cancelled, 0 cut short (interrupted) → ${terminalText(bundle)}`,
    )
    expect(r.stdout).not.toMatch(RAW_CONTROL)
  })

  it('recover escapes the run, its bundle and the folder in the resume hint of a run already recovered', async () => {
    const { runs, staging } = await killedHostileRun(join(work.path, `r${folders++}`))
    expect((await runCli('recover', staging, '--keep')).code).toBe(0)
    // The same folder again: its run has an interrupted bundle now, which a resume finishes.
    const r = await runCli('recover', staging)
    expect(r.code).toBe(1)
    const bundle = terminalText(relative(process.cwd(), join(runs, HOSTILE_RUN_ID)))
    expect(r.stderr).toContain(
      `run ${terminalText(HOSTILE_RUN_ID)} has its bundle ${bundle}, interrupted; ${terminalText(staging)} keeps`,
    )
    expect(r.stderr).toContain(`AGENTEVALOPS_RESUME=${bundle} npx vitest run`)
    expect(r.stderr).not.toMatch(RAW_CONTROL)
  })

  it("the bundle reporter's warning about a run that ended without its bundle shows it escaped", async () => {
    const root = join(work.path, `r${folders++}`)
    const { staging } = await killedHostileRun(root)
    const { vitest, warnings } = fakeVitest(root)
    const reporter = new BundleReporter({ project: 'evals', runsDir: 'runs', labels: {} })
    reporter.onInit(vitest)
    await reporter.onTestRunStart()
    await reporter.onTestRunEnd([], [], 'passed')
    const shown = terminalText(relative(process.cwd(), staging))
    expect(warnings).toEqual([
      `agentevalops: ${shown} holds 6 finished trial(s) of run ${terminalText(HOSTILE_RUN_ID)}, which ended ` +
        `without a bundle. Recover them with: npx agentevalops recover ${shown}`,
    ])
    expect(warnings[0]).not.toMatch(RAW_CONTROL)
  })

  it("the bundle reporter's error about a bundle it could not write shows the run id escaped", async () => {
    const root = join(work.path, `r${folders++}`)
    const { vitest, errors } = fakeVitest(root)
    const reporter = new BundleReporter({
      project: 'evals',
      runsDir: 'runs',
      labels: {},
      runId: HOSTILE_RUN_ID,
    })
    reporter.onInit(vitest)
    await reporter.onTestRunStart()
    // Records whose traces were never written, in a worker's log: the bundle cannot be made.
    const [stagingName] = await readdir(join(root, 'runs', '.staging'))
    const log = workerLogPath(join(root, 'runs', '.staging', stagingName!), process.pid, 7)
    await mkdir(dirname(log), { recursive: true })
    const records = makeTrials({ runId: HOSTILE_RUN_ID })
    await writeFile(log, records.map((record) => `${JSON.stringify({ record })}\n`).join(''))
    for (const record of records) {
      reporter.onTestCaseResult({
        project: { name: 'evals' },
        meta: () => ({ agentevalops: record }),
        module: { moduleId: join(root, 'evals', 'toy.eval.ts') },
        fullName: `toy > ${record.taskId}`,
      } as unknown as TestCase)
    }
    const exitCode = process.exitCode
    await reporter.onTestRunEnd([], [], 'passed')
    process.exitCode = exitCode
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain(`could not write the bundle of run ${terminalText(HOSTILE_RUN_ID)} (`)
    expect(errors[0]).toMatch(
      /Its traces are kept in .*\\x1b\[31mred.*\\nagentevalops: all 100 trials passed-[0-9a-f]{8}\.$/,
    )
    expect(errors[0]).not.toMatch(RAW_CONTROL)
  })

  it('counts a trial whose case ran twice once in the warning, as recover bundles it', async () => {
    const root = join(work.path, `r${folders++}`)
    const staging = join(root, 'runs', '.staging', 'retried')
    const trials = makeTrials()
    await stageRunInLogs(staging, trials)
    // The first trial ran again (a retried case): a second, later record of the same trial in a worker's log.
    await appendFile(
      workerLogPath(staging, DEAD_PID, 3),
      `${JSON.stringify({ record: { ...trials[0]!, warnings: ['retried'] } })}\n`,
    )
    const { vitest, warnings } = fakeVitest(root)
    const reporter = new BundleReporter({ project: 'evals', runsDir: 'runs', labels: {} })
    reporter.onInit(vitest)
    await reporter.onTestRunStart()
    await reporter.onTestRunEnd([], [], 'passed')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(`holds ${trials.length} finished trial(s) of run`)
  })
})
