// `vitest run --project evals` on this repository, as a user runs it: plain, filtered with -t, and with the
// JUnit reporter beside ours. The three children start together (they mostly wait on the toy trials' delays).
import { readFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOY_TASK_IDS, toyTasks } from '../../src/benchmarks/index.ts'
import { findLoops } from '../../src/evaluators/index.ts'
import {
  bundleDirs,
  eventsOf,
  listDir,
  readBundleEvents,
  readMetadata,
  readScores,
  runVitest,
  tail,
  tempDir,
  trialOf,
  validateWithCli,
  type TempDir,
  type VitestResult,
} from './helpers.ts'

interface Run {
  runs: TempDir
  result: Promise<VitestResult>
}

let full: Run
let filtered: Run
let junit: Run & { xml: string }
let replayed: Run

async function start(
  args: string[],
  extra: (runsDir: string) => string[] = () => [],
  env: Record<string, string> = {},
): Promise<Run> {
  const runs = await tempDir('aeo-e2e-runs-')
  const result = runVitest([...args, ...extra(runs.path)], { runsDir: runs.path, timeoutMs: 150_000, env })
  result.catch(() => {}) // awaited by the tests; this only keeps an early failure from being "unhandled"
  return { runs, result }
}

beforeAll(async () => {
  full = await start(['run', '--project', 'evals'])
  filtered = await start(['run', '--project', 'evals', '-t', 'arith-add'])
  // The JUnit run needs no HumanEval: its 328 Python checks would only crowd the machine.
  const j = await start(['run', '--project', 'evals', 'evals/toy.eval.ts', 'evals/judge.eval.ts'], (dir) => [
    '--reporter=default',
    '--reporter=junit',
    `--outputFile.junit=${join(dir, 'x.xml')}`,
  ])
  junit = { ...j, xml: join(j.runs.path, 'x.xml') }
  replayed = await start(['run', '--project', 'evals', 'evals/judge.eval.ts'], undefined, {
    AGENTEVALOPS_RECORD: 'replay',
  })
})

afterAll(async () => {
  for (const run of [full, filtered, junit, replayed]) {
    if (!run) continue
    await run.result.catch(() => {})
    await run.runs.remove()
  }
}, 60_000)

/** The single bundle folder of a run, after checking the run exited 0. */
async function onlyBundle(run: Run): Promise<{ result: VitestResult; dir: string }> {
  const result = await run.result
  expect(result.code, tail(result.output)).toBe(0)
  const dirs = await bundleDirs(run.runs.path)
  expect(dirs, 'exactly one bundle folder').toHaveLength(1)
  return { result, dir: dirs[0]! }
}

describe('vitest run --project evals (the repo)', { timeout: 160_000 }, () => {
  it('exits 0 and writes one valid bundle of all 15 toy trials, the 3 judged ones and HumanEval’s 3 × 164, with per-task lines on stdout', async () => {
    const { result, dir } = await onlyBundle(full)

    const validated = await validateWithCli(dir)
    expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)

    const scores = await readScores(dir)
    expect((await readMetadata(dir)).runId).toBe(basename(dir))
    const toy = scores.trials.filter((t) => t.benchmark.id === 'toy')
    expect(toy.map((t) => t.taskId).sort()).toEqual(Object.values(TOY_TASK_IDS).sort())
    // evals/judge.eval.ts: the LLM judge against its fake Messages API, in the same run and bundle.
    const judged = scores.trials.filter((t) => t.benchmark.id === 'judge-demo')
    expect(judged.map((t) => `${t.taskId}:${t.outcome}`).sort()).toEqual([
      'judge-capital:passed',
      'judge-city-of-light:passed',
      'judge-wrong-city:failed',
    ])
    // evals/humaneval.eval.ts: the oracle passes every problem; the weak runner's trials pass or fail, never worse.
    const oracle = scores.trials.filter((t) => t.benchmark.id === 'humaneval')
    expect(oracle).toHaveLength(164)
    expect(oracle.filter((t) => t.outcome !== 'passed').map((t) => t.taskId)).toEqual([])
    const empty = scores.trials.filter((t) => t.benchmark.id === 'humaneval@empty')
    expect(empty).toHaveLength(164)
    expect(empty.filter((t) => t.outcome !== 'failed').map((t) => t.taskId)).toEqual([])
    const weak = scores.trials.filter((t) => t.benchmark.id === 'humaneval@weak')
    expect(weak).toHaveLength(164)
    expect(new Set(weak.map((t) => t.outcome))).toEqual(new Set(['passed', 'failed']))
    expect(scores.trials).toHaveLength(
      toy.length + judged.length + oracle.length + empty.length + weak.length,
    )

    // Every toy task ends the way its scenario says; the console summary lists each one that did not pass (named
    // benchmark/task in a run of several benchmarks), and counts the passes it leaves out.
    for (const task of toyTasks()) {
      const record = trialOf(scores, task.id)
      expect(record.outcome, task.id).toBe(task.metadata.expectedOutcome)
      if (record.outcome === 'passed') continue
      expect(result.stdout).toMatch(new RegExp(`^\\s*toy/${task.id} #0\\s+${record.outcome}\\s`, 'm'))
    }
    expect(result.stdout).toMatch(/^\s*toy\/forbidden-tool #0\s+policy_violation\s/m)
    expect(result.stdout).toMatch(/^\s*… \d+ passed trials not listed$/m)
    expect(result.stdout).toContain(`bundle `)
    // One headline per benchmark × target, each with its interval, and no pooled rate over four different agents.
    expect(result.stdout).toMatch(/^agentevalops: humaneval · humaneval-oracle: 100\.0% pass rate \(95% CI /m)
    expect(result.stdout).toMatch(/^agentevalops: humaneval@empty · humaneval-empty: 0\.0% pass rate /m)
    // The toy's and the judge demo's scripted runners differ in their scripts, so they are two targets, told apart
    // by the setting that differs.
    expect(result.stdout).toMatch(
      /^agentevalops: toy · mock-scripted \(scriptsSha256=[0-9a-f]{8}\): [\d.]+% pass rate /m,
    )
    expect(result.stdout).toContain('agentevalops: No pooled pass rate: 5 targets ran')
    expect(result.stdout).toMatch(/^agentevalops: \d+\/\d+ trials passed · bundle /m)
    expect(result.stdout).toContain(basename(dir))

    // The run's staging folder goes once the bundle is written, and the emptied .staging folder with it.
    expect(await listDir(full.runs.path)).toEqual([basename(dir)])
  })

  it('bundle traces: the loop, the forbidden call and the limit hits are where the scores say', async () => {
    const { dir } = await onlyBundle(full)
    const scores = await readScores(dir)
    const events = await readBundleEvents(dir)
    expect(new Set(events.map((e) => e.runId))).toEqual(new Set([basename(dir)]))

    // tool-loop: the same search four times; the loop check names exactly those tool_call steps.
    const loopEvents = eventsOf(events, TOY_TASK_IDS.toolLoop)
    const searchSteps = loopEvents
      .filter((e) => e.kind === 'agent.tool_call' && e.payload.tool === 'search')
      .map((e) => e.step)
    expect(searchSteps).toHaveLength(4)
    const loops = findLoops(loopEvents)
    expect(loops.pass).toBe(false)
    expect(loops.steps).toEqual(searchSteps)
    expect(loops.message).toContain(`tool "search" called 4 times`)
    expect(loops.message).toContain(`steps ${searchSteps.join(', ')}`)
    // The other trials have no loop.
    for (const task of toyTasks().filter((t) => t.id !== TOY_TASK_IDS.toolLoop)) {
      expect(findLoops(eventsOf(events, task.id)).pass, task.id).toBe(true)
    }

    // forbidden-tool: a FAIL verdict whose finding cites the step of the delete_database call.
    const forbidden = trialOf(scores, TOY_TASK_IDS.forbiddenTool)
    const deleteCall = eventsOf(events, TOY_TASK_IDS.forbiddenTool).find(
      (e) => e.kind === 'agent.tool_call' && e.payload.tool === 'delete_database',
    )
    expect(deleteCall).toBeDefined()
    const failed = forbidden.verdicts.filter((v) => v.verdict === 'FAIL')
    expect(failed.map((v) => v.checkerId)).toEqual(['tool-access'])
    expect(failed[0]!.findings).toEqual([
      expect.objectContaining({ severity: 'FAIL', citations: [deleteCall!.step] }),
    ])
    expect(failed[0]!.findings[0]!.message).toContain('delete_database')
    // The verdict is in the bundle's trace too.
    expect(
      eventsOf(events, TOY_TASK_IDS.forbiddenTool).some(
        (e) =>
          e.kind === 'policy.verdict' &&
          e.payload.checkerId === 'tool-access' &&
          e.payload.verdict === 'FAIL',
      ),
    ).toBe(true)

    // report.md lists what each evaluator found, with the steps: the loop as trace-quality saw it.
    const report = await readFile(join(dir, 'report.md'), 'utf8')
    const loopRow = report
      .split('\n')
      .find((line) => line.startsWith('| toy | tool-loop | 0 | trace-quality |'))
    expect(loopRow).toContain(`steps ${searchSteps.join(', ')}`)
    expect(loopRow).toContain('repeated_call: tool "search" called 4 times')
    // The write-file task's workspace was judged by the state evaluator, and it passed.
    expect(
      trialOf(scores, TOY_TASK_IDS.writeFile).scores.find((sc) => sc.kind === 'state_based'),
    ).toMatchObject({
      passed: true,
      score: 1,
    })

    // cost / token / time limits: in the record and in the trace's terminal event.
    const limitTasks = [
      [TOY_TASK_IDS.costCeiling, 'limit_cost'],
      [TOY_TASK_IDS.tokenLimit, 'limit_tokens'],
      [TOY_TASK_IDS.timeLimit, 'limit_time'],
    ] as const
    for (const [taskId, terminatedBy] of limitTasks) {
      expect(trialOf(scores, taskId).result?.terminatedBy, taskId).toBe(terminatedBy)
      const terminals = eventsOf(events, taskId).filter((e) => e.kind === 'agent.terminal')
      expect(
        terminals.map((e) => e.payload.terminatedBy),
        taskId,
      ).toEqual([terminatedBy])
    }
  })

  it('-t arith-add: one bundle holding only that task, with the pattern in metadata and replay command', async () => {
    const { dir } = await onlyBundle(filtered)
    expect((await validateWithCli(dir)).code).toBe(0)

    const scores = await readScores(dir)
    expect(scores.trials.map((t) => `${t.taskId} #${t.trial}`)).toEqual(['arith-add #0'])
    const events = await readBundleEvents(dir)
    expect(events.length).toBeGreaterThan(0)
    expect(new Set(events.map((e) => e.taskId))).toEqual(new Set(['arith-add']))

    const metadata = JSON.parse(await readFile(join(dir, 'metadata.json'), 'utf8')) as {
      testNamePattern: string | null
      trialCount: number
    }
    expect(metadata.testNamePattern).toBe('arith-add')
    expect(metadata.trialCount).toBe(1)
    const replay = await readFile(join(dir, 'replay_command.txt'), 'utf8')
    expect(replay).toMatch(/npx vitest run --project evals .*-t arith-add/)
  })

  it('--reporter=default --reporter=junit: writes the JUnit XML and still our bundle', async () => {
    const { dir } = await onlyBundle(junit)
    expect((await validateWithCli(dir)).code).toBe(0)
    expect((await readScores(dir)).trials.filter((t) => t.benchmark.id === 'toy')).toHaveLength(15)

    const xml = await readFile(junit.xml, 'utf8')
    expect(xml).toMatch(/^<\?xml/)
    const testcases = [...xml.matchAll(/<testcase\b[^>]*\bname="([^"]*)"/g)].map((m) => m[1])
    for (const id of Object.values(TOY_TASK_IDS)) {
      expect(testcases, id).toContain(`toy &gt; ${id} #0`)
    }
    expect(testcases.some((name) => name?.includes('gate: pass rate'))).toBe(true)
    // Under the aggregate gate every trial case passes, so each says how its trial went as a JUnit property.
    expect(xml).toMatch(
      /<property name="agentevalops" value="policy_violation · score 1\.00 · completed · [^"]*policy tool-access FAIL"/,
    )
    // Five of the toy's evaluators and its assert callback (the `assert` score, which held): 5 of 6.
    expect(xml).toMatch(
      /<property name="agentevalops" value="limit_exceeded · score 0\.83 · limit_time · [^"]*assert 1\.000 pass[^"]*"/,
    )
  })

  it('AGENTEVALOPS_RECORD=replay: the judge demo runs from its committed recordings, with no server', async () => {
    const { dir, result } = await onlyBundle(replayed)
    const scores = await readScores(dir)
    expect(scores.trials.map((t) => `${t.taskId}:${t.outcome}`).sort()).toEqual([
      'judge-capital:passed',
      'judge-city-of-light:passed',
      'judge-wrong-city:failed',
    ])
    // The replayed judge calls are in the trace as they were recorded: one ok call per trial, priced.
    const calls = (await readBundleEvents(dir)).filter((e) => e.kind === 'evaluator.model_call')
    expect(calls.map((e) => e.payload.status)).toEqual(['ok', 'ok', 'ok'])
    expect(calls.every((e) => e.costDeltaUsd > 0)).toBe(true)
    expect(result.output).not.toContain('RECORDING_MISSING')
    // The bundle carries the recordings its trials were answered with, one per judged trial.
    const recordings = (await readFile(join(dir, 'recordings.jsonl'), 'utf8')).trim().split('\n')
    expect(recordings.map((line) => (JSON.parse(line) as { taskId: string }).taskId).sort()).toEqual([
      'judge-capital',
      'judge-city-of-light',
      'judge-wrong-city',
    ])
    expect((await validateWithCli(dir)).code).toBe(0)
  })
})
