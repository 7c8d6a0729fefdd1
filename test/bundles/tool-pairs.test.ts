// Tool calls without a callId (the scripted runner's, a command agent's) pair up too: in a bundle of a real mock
// run, a deleted tool_result or tool_call is found even with eventCount recounted and the manifest recomputed.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateBundle } from '../../src/bundles/index.ts'
import { TOY_TASK_IDS } from '../../src/benchmarks/index.ts'
import { statsSummaryRecomputer } from '../../src/scorers/index.ts'
import {
  copyBundle,
  editScores,
  readTraceLines,
  restampManifest,
  tempDir,
  writeTraceLines,
} from './fixtures.ts'
import { MOCK_RUN_ID, mockRunBundle } from './mock-run-bundle.ts'

const validateFully = (dir: string) => validateBundle(dir, { recomputeSummary: statsSummaryRecomputer })

type Event = { taskId: string; step: number; kind: string; payload: Record<string, unknown> }

let work: Awaited<ReturnType<typeof tempDir>>
let pristine: string
let copies = 0

beforeAll(async () => {
  work = await tempDir('aeo-tool-pairs-')
  pristine = await mockRunBundle(work.path)
})
afterAll(async () => work.remove())

/** Drops the first event of `taskId` that `pick` selects, recounts its eventCount and re-stamps the manifest. */
async function dropEvent(
  taskId: string,
  pick: (e: Event) => boolean,
): Promise<{ dir: string; dropped: Event }> {
  const dir = await copyBundle(pristine, join(work.path, `copy-${++copies}`))
  const lines = await readTraceLines(dir)
  const index = lines.findIndex((line) => {
    const e = JSON.parse(line) as Event
    return e.taskId === taskId && pick(e)
  })
  expect(index).toBeGreaterThanOrEqual(0)
  const dropped = JSON.parse(lines[index]!) as Event
  await writeTraceLines(
    dir,
    lines.filter((_, i) => i !== index),
  )
  await editScores(dir, (scores) => {
    scores.trials.find((t) => t.taskId === taskId)!.eventCount -= 1
  })
  await restampManifest(dir, MOCK_RUN_ID)
  return { dir, dropped }
}

describe('validate-bundle pairs tool calls that carry no callId', () => {
  it('finds nothing wrong with a real mock run, whose tool events have no callId', async () => {
    const events = (await readTraceLines(pristine)).map((l) => JSON.parse(l) as Event)
    const tools = events.filter((e) => e.kind === 'agent.tool_call' || e.kind === 'agent.tool_result')
    expect(tools.length).toBeGreaterThan(10)
    expect(tools.every((e) => e.payload['callId'] === undefined)).toBe(true)
    // The time-limit trial stopped inside its tool call: an open call there is no finding.
    expect(
      events.filter((e) => e.taskId === TOY_TASK_IDS.timeLimit && e.kind === 'agent.tool_call'),
    ).toHaveLength(1)
    expect(
      events.filter((e) => e.taskId === TOY_TASK_IDS.timeLimit && e.kind === 'agent.tool_result'),
    ).toHaveLength(0)
    // A completed trial whose agent records calls and no results at all is no finding either.
    const callsOnly = events.filter((e) => e.taskId === TOY_TASK_IDS.contains)
    expect(callsOnly.filter((e) => e.kind === 'agent.tool_call')).toHaveLength(2)
    expect(callsOnly.some((e) => e.kind === 'agent.tool_result')).toBe(false)
    expect(await validateFully(pristine)).toEqual([])
  })

  it('names a deleted tool_result of a completed trial', async () => {
    const { dir, dropped } = await dropEvent(
      TOY_TASK_IDS.multiStep,
      (e) => e.kind === 'agent.tool_result' && e.payload['tool'] === 'convert_temperature',
    )
    const findings = await validateFully(dir)
    expect(findings).toEqual([
      {
        check: 'tool-pairs',
        file: 'traces.jsonl',
        message: `the tool_call of tool "convert_temperature" at step ${dropped.step - 1} of task "${TOY_TASK_IDS.multiStep}" trial 0 (benchmark "toy") has no tool_result, though the trial completed`,
      },
    ])
  })

  it('names a tool_result left answering no call once its tool_call is deleted', async () => {
    const { dir, dropped } = await dropEvent(
      TOY_TASK_IDS.multiStep,
      (e) => e.kind === 'agent.tool_call' && e.payload['tool'] === 'convert_temperature',
    )
    const findings = await validateFully(dir)
    expect(findings.map((f) => `${f.check} ${f.file}: ${f.message.replace(/^line \d+: /, '')}`)).toEqual([
      `tool-pairs traces.jsonl: the tool_result of tool "convert_temperature" at step ${dropped.step + 1} of task "${TOY_TASK_IDS.multiStep}" trial 0 (benchmark "toy") answers no earlier tool_call of that tool`,
    ])
  })

  it('holds a trial to results only when its agent records some: one whose every result is gone passes', async () => {
    // What the pairing cannot tell from an agent that logs only its calls (security.md says so).
    const { dir } = await dropEvent(TOY_TASK_IDS.singleTool, (e) => e.kind === 'agent.tool_result')
    expect(await validateFully(dir)).toEqual([])
  })

  it('names the one unanswered call among four of the same tool', async () => {
    let seen = 0
    const { dir } = await dropEvent(
      TOY_TASK_IDS.toolLoop,
      (e) => e.kind === 'agent.tool_result' && ++seen === 2,
    )
    const findings = await validateFully(dir)
    expect(findings.map((f) => f.check)).toEqual(['tool-pairs'])
    expect(findings[0]!.message).toMatch(/^the tool_call of tool "search" at step \d+ of task "tool-loop"/)
  })
})
