// `agentevalops run --resume`: a run interrupted (Ctrl+C) at about half way, resumed and interrupted again, then
// resumed from that second bundle, runs every trial exactly once to its end (the scripted runner's call log says
// which ran) and ends with the same outcomes and scores as a run that was never interrupted.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScoredTrial } from '../../src/core/index.ts'
import {
  buildCli,
  bundleDirs,
  pollUntil,
  readMetadata,
  readScores,
  runCli,
  stagedRecordLines,
  startCli,
  tail,
  tempDir,
  validateWithCli,
  type BuiltCli,
  type TempDir,
} from './helpers.ts'

const TASKS = ['arith-add', 'capital-france', 'wrong-answer']
const TRIALS = 6
const TOTAL = TASKS.length * TRIALS

let cli: BuiltCli
let work: TempDir

beforeAll(async () => {
  cli = await buildCli()
  work = await tempDir('aeo-resume-')
}, 30_000)
afterAll(async () => {
  await cli?.remove()
  await work?.remove()
}, 30_000)

/** A config whose trials take ~400 ms, two in flight, logging each started trial to `log`. */
async function config(name: string, log: string): Promise<string> {
  const step = (kind: string, extra: string) => `{ kind: ${kind}, ${extra}, delayMs: 200 }`
  const path = join(work.path, `${name}.yaml`)
  await writeFile(
    path,
    [
      'name: resume-demo',
      `benchmark: { id: toy, tasks: [${TASKS.join(', ')}] }`,
      'agent:',
      '  runner: mock-scripted',
      '  options:',
      `    call_log: ${JSON.stringify(log)}`,
      '    scripts:',
      `      arith-add: { steps: [${step('plan', 'text: add')}, ${step('final_answer', 'answer: "42"')}] }`,
      `      capital-france: { steps: [${step('plan', 'text: recall')}, ${step('final_answer', 'answer: "Paris."')}] }`,
      `      wrong-answer: { steps: [${step('plan', 'text: guess')}, ${step('final_answer', 'answer: "81"')}] }`,
      'evaluators: [matches-expected]',
      `trials: ${TRIALS}`,
      'concurrency: 2',
      'gate: { min_pass_rate: 0 }',
      '',
    ].join('\n'),
  )
  return path
}

async function stagedRecordCount(runsDir: string): Promise<number> {
  // Each worker's log holds a record line per finished trial; a torn last line is not one.
  return (await stagedRecordLines(runsDir)).length
}

/** Runs the config and sends Ctrl+C once `finished` trials have their records; returns the interrupted bundle. */
async function interruptedRun(args: string[], runsDir: string, finished: number): Promise<string> {
  const before = new Set(await bundleDirs(runsDir))
  const proc = startCli(cli, ['run', ...args], { runsDir })
  let output = ''
  try {
    await pollUntil(
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`exited early:\n${tail(proc.output)}`)
        return (await stagedRecordCount(runsDir)) >= finished ? true : undefined
      },
      { timeoutMs: 30_000, intervalMs: 10, describe: () => `${finished} finished\n${tail(proc.output)}` },
    )
    proc.killGroup('SIGINT')
    output = (await proc.waitForExit(20_000)).output
  } finally {
    proc.killGroup('SIGKILL')
  }
  const [dir, ...more] = (await bundleDirs(runsDir)).filter((d) => !before.has(d))
  expect(dir, output).toBeDefined()
  expect(more).toEqual([])
  const validated = await validateWithCli(dir!)
  expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)
  expect((await readMetadata(dir!)).status).toBe('interrupted')
  return dir!
}

async function logCounts(log: string): Promise<Map<string, number>> {
  const text = await readFile(log, 'utf8').catch(() => '')
  const counts = new Map<string, number>()
  for (const line of text.split('\n').filter(Boolean)) counts.set(line, (counts.get(line) ?? 0) + 1)
  return counts
}

function perTask(trials: readonly ScoredTrial[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const t of trials) counts.set(t.taskId, (counts.get(t.taskId) ?? 0) + 1)
  return counts
}

/** What must not depend on interruptions: each trial's outcome and scores. */
function results(trials: readonly ScoredTrial[]) {
  return trials
    .map((t) => ({
      key: `${t.taskId} #${t.trial}`,
      outcome: t.outcome,
      scores: t.scores.map((s) => [s.evaluatorId, s.score, s.passed, s.explanation]),
    }))
    .sort((a, b) => (a.key < b.key ? -1 : 1))
}

describe('agentevalops run --resume', { timeout: 150_000 }, () => {
  it('interrupt, resume, interrupt, resume: every trial runs once to its end, results as if uninterrupted', async () => {
    const runsDir = join(work.path, 'runs')
    const logs = [0, 1, 2, 3].map((i) => join(work.path, `calls-${i}.log`))

    const uninterrupted = await runCli(cli, ['run', await config('plain', logs[0]!)], {
      runsDir: join(work.path, 'plain-runs'),
      timeoutMs: 60_000,
    })
    expect(uninterrupted.code, tail(uninterrupted.output)).toBe(0)
    const [plainDir] = await bundleDirs(join(work.path, 'plain-runs'))
    const plain = await readScores(plainDir!)
    expect(plain.trials).toHaveLength(TOTAL)

    // 1. Interrupted at about half way.
    const first = await interruptedRun([await config('first', logs[1]!)], runsDir, TOTAL / 2)
    const firstTrials = (await readScores(first)).trials
    expect(firstTrials.length).toBeGreaterThanOrEqual(TOTAL / 2)
    expect(firstTrials.length).toBeLessThan(TOTAL)

    // 2. Resumed from it, and interrupted again after a few more.
    const second = await interruptedRun(
      [await config('second', logs[2]!), '--resume', first],
      join(work.path, 'runs'),
      firstTrials.length + 2,
    )
    const secondTrials = (await readScores(second)).trials
    expect((await readMetadata(second)).resumedFrom).toEqual([(await readMetadata(first)).runId])
    const taken = secondTrials.filter((t) => t.reusedFrom !== null)
    expect(taken.map((t) => `${t.taskId} #${t.trial}`).sort()).toEqual(
      firstTrials.map((t) => `${t.taskId} #${t.trial}`).sort(),
    )
    expect(taken.every((t) => t.reusedFrom?.mode === 'record')).toBe(true)
    // It started none of the trials the first run had finished.
    const firstDone = perTask(firstTrials)
    for (const [task, started] of await logCounts(logs[2]!))
      expect(started, task).toBeLessThanOrEqual(TRIALS - (firstDone.get(task) ?? 0))

    // 3. Resumed from the second bundle (which carries the first's trials): it runs exactly the rest.
    const final = await runCli(cli, ['run', await config('third', logs[3]!), '--resume', second], {
      runsDir,
      timeoutMs: 60_000,
    })
    expect(final.code, tail(final.output)).toBe(0)
    const finalDir = (await bundleDirs(runsDir)).find((d) => d !== first && d !== second)!
    const validated = await validateWithCli(finalDir)
    expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)
    const finalScores = await readScores(finalDir)
    expect(finalScores.trials).toHaveLength(TOTAL)
    const secondDone = perTask(secondTrials)
    const third = await logCounts(logs[3]!)
    for (const task of TASKS) expect(third.get(task) ?? 0, task).toBe(TRIALS - (secondDone.get(task) ?? 0))
    expect(finalScores.trials.filter((t) => t.reusedFrom === null)).toHaveLength(TOTAL - secondTrials.length)

    expect(results(finalScores.trials)).toEqual(results(plain.trials))
    expect(finalScores.summary.headline).toEqual(plain.summary.headline)
  })
})
