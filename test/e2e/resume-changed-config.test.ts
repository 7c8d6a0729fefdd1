// `agentevalops run --resume` after a config change that shapes how trials go: tighter resource limits or other
// scripts for the scripted runner. Those trials run again (the runner's call log says which ran), the console says
// why, and the same config resumed again still takes every trial over.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  buildCli,
  bundleDirs,
  readScores,
  runCli,
  tail,
  tempDir,
  validateWithCli,
  type BuiltCli,
  type TempDir,
} from './helpers.ts'

const TASKS = ['arith-add', 'capital-france']
const TRIALS = 3
const TOTAL = TASKS.length * TRIALS

let cli: BuiltCli
let work: TempDir

beforeAll(async () => {
  cli = await buildCli()
  work = await tempDir('aeo-resume-changed-')
}, 30_000)
afterAll(async () => {
  await cli?.remove()
  await work?.remove()
}, 30_000)

/** Two tasks the scripts answer right, with a few tokens per step; limits and one answer as given. */
async function config(
  name: string,
  log: string,
  options: { limits?: string; capital?: string } = {},
): Promise<string> {
  const step = (kind: string, extra: string) => `{ kind: ${kind}, ${extra}, tokens: 5 }`
  const path = join(work.path, `${name}.yaml`)
  await writeFile(
    path,
    [
      'name: resume-changed',
      `benchmark: { id: toy, tasks: [${TASKS.join(', ')}] }`,
      'agent:',
      '  runner: mock-scripted',
      ...(options.limits ? [`  resource_limits: ${options.limits}`] : []),
      '  options:',
      `    call_log: ${JSON.stringify(log)}`,
      '    scripts:',
      `      arith-add: { steps: [${step('plan', 'text: add')}, ${step('final_answer', 'answer: "42"')}] }`,
      `      capital-france: { steps: [${step('plan', 'text: recall')}, ${step('final_answer', `answer: ${JSON.stringify(options.capital ?? 'Paris.')}`)}] }`,
      'evaluators: [matches-expected]',
      `trials: ${TRIALS}`,
      'gate: { min_pass_rate: 0 }',
      '',
    ].join('\n'),
  )
  return path
}

async function started(log: string): Promise<number> {
  const text = await readFile(log, 'utf8').catch(() => '')
  return text.split('\n').filter(Boolean).length
}

/** Runs a config (resuming `from`, if given) to its end; returns its new bundle and console output. */
async function run(runsDir: string, path: string, from?: string): Promise<{ dir: string; output: string }> {
  const before = new Set(await bundleDirs(runsDir))
  const done = await runCli(cli, ['run', path, ...(from ? ['--resume', from] : [])], {
    runsDir,
    timeoutMs: 60_000,
  })
  expect(done.code, tail(done.output)).toBe(0)
  const [dir, ...more] = (await bundleDirs(runsDir)).filter((d) => !before.has(d))
  expect(more).toEqual([])
  const validated = await validateWithCli(dir!)
  expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)
  return { dir: dir!, output: done.output }
}

describe('agentevalops run --resume after a config change', { timeout: 150_000 }, () => {
  it('runs again the trials that tighter limits or other scripts would run differently, and says why', async () => {
    const runsDir = join(work.path, 'runs')
    const log = (n: string) => join(work.path, `calls-${n}.log`)

    const first = await run(runsDir, await config('first', log('first')))
    const firstScores = await readScores(first.dir)
    expect(firstScores.trials.filter((t) => t.passed)).toHaveLength(TOTAL)

    // max_tokens 1: a fresh run passes none, so a resume must take none over.
    const limited = await config('limited', log('limited'), { limits: '{ max_tokens: 1 }' })
    const second = await run(runsDir, limited, first.dir)
    const secondTrials = (await readScores(second.dir)).trials
    expect(secondTrials).toHaveLength(TOTAL)
    expect(secondTrials.filter((t) => t.reusedFrom !== null)).toEqual([])
    expect(secondTrials.filter((t) => t.passed)).toEqual([])
    expect(new Set(secondTrials.map((t) => t.outcome))).toEqual(new Set(['limit_exceeded']))
    expect(await started(log('limited'))).toBe(TOTAL)
    expect(second.output).toMatch(
      /--resume: toy trials run again, not taken over from run \S+: limits changed/,
    )
    for (const t of secondTrials) expect(t.warnings.join('\n')).toMatch(/not taken over .*: limits changed/)

    // The same config again: everything is taken over, nothing runs.
    const third = await run(
      runsDir,
      await config('limited-again', log('limited-again'), { limits: '{ max_tokens: 1 }' }),
      second.dir,
    )
    const thirdTrials = (await readScores(third.dir)).trials
    expect(thirdTrials).toHaveLength(TOTAL)
    expect(thirdTrials.filter((t) => t.reusedFrom?.mode === 'record')).toHaveLength(TOTAL)
    expect(await started(log('limited-again'))).toBe(0)
    expect(third.output).not.toMatch(/not taken over/)

    // Another script for one task: the runner's scripts are keyed as a whole, so every trial runs again.
    const rescripted = await config('rescripted', log('rescripted'), { capital: 'Lyon.' })
    const fourth = await run(runsDir, rescripted, first.dir)
    const fourthTrials = (await readScores(fourth.dir)).trials
    expect(fourthTrials.filter((t) => t.reusedFrom !== null)).toEqual([])
    expect(fourthTrials.filter((t) => t.passed)).toHaveLength(TRIALS)
    expect(await started(log('rescripted'))).toBe(TOTAL)
    expect(fourth.output).toMatch(/not taken over from run \S+: runner config changed/)
  })
})
