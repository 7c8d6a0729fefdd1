// Lies told across files, each with the manifest recomputed so that checksums cannot be what finds them: every
// file alone still matches its schema, and only holding one file against another (or the engine's own rules)
// shows the edit.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateBundle, type Finding } from '../../src/bundles/index.ts'
import { statsSummaryRecomputer } from '../../src/scorers/index.ts'
import type { ValidateBundleJson } from '../../src/cli/commands/validate-bundle.ts'
import { runCli } from '../cli/helpers.ts'
import {
  buildBundle,
  copyBundle,
  editScores,
  readTraceLines,
  restampManifest,
  tempDir,
  writeTraceLines,
} from './fixtures.ts'

/** validate-bundle as the CLI runs it: with the stats scorer to recompute the summary against. */
const validateFully = (dir: string) => validateBundle(dir, { recomputeSummary: statsSummaryRecomputer })

let work: Awaited<ReturnType<typeof tempDir>>
let pristine: string
let copies = 0

beforeAll(async () => {
  work = await tempDir('aeo-cross-file-')
  pristine = await buildBundle(work.path)
})
afterAll(async () => work.remove())

async function fresh(): Promise<string> {
  return copyBundle(pristine, join(work.path, `copy-${++copies}`))
}

type Event = Record<string, unknown> & { taskId: string; trial: number; step: number; kind: string }

async function editEvents(dir: string, edit: (events: Event[]) => Event[]): Promise<void> {
  const events = (await readTraceLines(dir)).map((line) => JSON.parse(line) as Event)
  await writeTraceLines(
    dir,
    edit(events).map((e) => JSON.stringify(e)),
  )
}

function checks(findings: readonly Finding[]): string[] {
  return [...new Set(findings.map((f) => f.check))].sort()
}

describe('validate-bundle against cross-file lies, with the manifest recomputed', () => {
  it('still finds nothing wrong with an untouched bundle, and a re-stamped one', async () => {
    expect(await validateFully(pristine)).toEqual([])
    const dir = await fresh()
    await restampManifest(dir)
    expect(await validateFully(dir)).toEqual([])
  })

  it('(a) names a trial with passed: true and outcome failed', async () => {
    const dir = await fresh()
    await editScores(dir, (scores) => {
      const trial = scores.trials.find((t) => t.taskId === 'task-2' && t.trial === 1)!
      expect(trial.outcome).toBe('failed')
      trial.passed = true
    })
    await restampManifest(dir)
    const findings = await validateFully(dir)
    expect(findings).toContainEqual({
      check: 'trial-outcome',
      file: 'scores.json',
      message:
        'trials[5] (task "task-2" trial 1 (benchmark "toy")): passed is true but its outcome is failed',
    })
  })

  it('(a) names a failed trial relabelled passed, its passed flag and summary edited to match', async () => {
    const dir = await fresh()
    await editScores(dir, (scores) => {
      const trial = scores.trials.find((t) => t.taskId === 'task-2' && t.trial === 1)!
      trial.outcome = 'passed'
      trial.passed = true
    })
    await restampManifest(dir)
    const findings = await validateFully(dir)
    expect(findings).toContainEqual({
      check: 'trial-outcome',
      file: 'scores.json',
      message:
        'trials[5] (task "task-2" trial 1 (benchmark "toy")): outcome is passed but its result, scores and verdicts make it failed',
    })
  })

  it('(b) names a summary headline edited to 0.99', async () => {
    const dir = await fresh()
    let real = 0
    await editScores(dir, (scores) => {
      real = scores.summary.headline.primary.rate!
      scores.summary.headline.primary.rate = 0.99
    })
    expect(real).not.toBe(0.99)
    await restampManifest(dir)
    const findings = await validateFully(dir)
    expect(findings).toEqual([
      {
        check: 'summary-matches',
        file: 'scores.json',
        message: `summary.headline.primary.rate is 0.99 but the trials give ${real} (changed after the run was scored?)`,
      },
    ])
  })

  it("(c) names a record's eventCount five more than its trace holds", async () => {
    const dir = await fresh()
    await editScores(dir, (scores) => {
      scores.trials[2]!.eventCount += 5
    })
    await restampManifest(dir)
    expect(await validateFully(dir)).toEqual([
      {
        check: 'event-count',
        file: 'scores.json',
        message:
          'trials[2] (task "task-1" trial 0 (benchmark "toy")): eventCount is 12 but traces.jsonl holds 7 event(s) of it',
      },
    ])
  })

  it('(d) names a policy verdict citing a deleted event', async () => {
    const dir = await fresh()
    // The verdict of task-1 trial 1 cites step 2 (its tool call): the call and its result go, the count follows.
    const cut = (e: Event) => e.taskId === 'task-1' && e.trial === 1 && (e.step === 2 || e.step === 3)
    await editEvents(dir, (events) => events.filter((e) => !cut(e)))
    await editScores(dir, (scores) => {
      const trial = scores.trials.find((t) => t.taskId === 'task-1' && t.trial === 1)!
      expect(trial.verdicts[0]!.findings[0]!.citations).toEqual([2])
      trial.eventCount -= 2
    })
    await restampManifest(dir)
    expect(await validateFully(dir)).toEqual([
      {
        check: 'citations',
        file: 'scores.json',
        message:
          'trials[3] (task "task-1" trial 1 (benchmark "toy")): verdicts[0] "tool-policy" findings[0] cite(s) step 2, which is not an event of the trial in traces.jsonl',
      },
    ])
  })

  it('(d) names a score citing a step the trace never had', async () => {
    const dir = await fresh()
    await editScores(dir, (scores) => {
      scores.trials[0]!.scores[0]!.citations = [4, 99]
    })
    await restampManifest(dir)
    const findings = await validateFully(dir)
    expect(findings.map((f) => `${f.check}: ${f.message}`)).toEqual([
      'citations: trials[0] (task "task-0" trial 0 (benchmark "toy")): scores[0] "exact-match" cite(s) step 99, which is not an event of the trial in traces.jsonl',
    ])
  })

  /** The fixture's tool call and result of each trial, given the callId ctx.toolCall records them under. */
  const withCallIds = (events: Event[]) =>
    events.map((e) =>
      e.kind === 'agent.tool_call' || e.kind === 'agent.tool_result'
        ? { ...e, payload: { ...(e.payload as object), callId: 'call_1' } }
        : e,
    )

  it('(e) validates tool calls paired by callId', async () => {
    const dir = await fresh()
    await editEvents(dir, withCallIds)
    await restampManifest(dir)
    expect(await validateFully(dir)).toEqual([])
  })

  it('(e) names a deleted tool_result', async () => {
    const dir = await fresh()
    await editEvents(dir, (events) =>
      withCallIds(events)
        .filter((e) => !(e.taskId === 'task-0' && e.trial === 0 && e.kind === 'agent.tool_result'))
        // Renumbered and recounted, so that steps, count and citations all still agree.
        .map((e) => (e.taskId === 'task-0' && e.trial === 0 && e.step > 3 ? { ...e, step: e.step - 1 } : e)),
    )
    await editScores(dir, (scores) => {
      scores.trials[0]!.eventCount -= 1
      scores.trials[0]!.scores[0]!.citations = [3]
    })
    await restampManifest(dir)
    expect(await validateFully(dir)).toEqual([
      {
        check: 'tool-pairs',
        file: 'traces.jsonl',
        message:
          'the tool_call "call_1" at step 2 of task "task-0" trial 0 (benchmark "toy") has no tool_result, though the trial completed',
      },
    ])
  })

  it('(e) names a tool_result that answers no tool_call', async () => {
    const dir = await fresh()
    await editEvents(dir, (events) =>
      withCallIds(events).map((e) =>
        e.taskId === 'task-2' && e.trial === 0 && e.kind === 'agent.tool_call'
          ? { ...e, kind: 'agent.observation', payload: { text: 'thinking' } }
          : e,
      ),
    )
    await restampManifest(dir)
    expect(await validateFully(dir)).toEqual([
      {
        check: 'tool-pairs',
        file: 'traces.jsonl',
        message:
          'line 32: the tool_result of call "call_1" (tool "calc") at step 3 of task "task-2" trial 0 (benchmark "toy") answers no earlier tool_call',
      },
    ])
  })

  it('(f) names 1e400 (Infinity once parsed) in citations, in scores.json and in a trace line', async () => {
    const dir = await fresh()
    await editScores(dir, (scores) => {
      scores.trials[1]!.scores[0]!.citations = [4, 7]
    })
    // JSON.stringify cannot write Infinity: the literal goes in as text, as an attacker would write it.
    const path = join(dir, 'scores.json')
    const text = await readFile(path, 'utf8')
    await writeFile(path, text.replace(/(\[\s*4,\s*)7(\s*\])/, '$11e400$2'))
    await editEvents(dir, (events) =>
      events.map((e, i) => (i === 0 ? { ...e, payload: { text: 'plan', ratio: 12345 } } : e)),
    )
    const lines = await readTraceLines(dir)
    lines[0] = lines[0]!.replace('12345', '-1e400')
    await writeTraceLines(dir, lines)
    await restampManifest(dir)
    const findings = await validateFully(dir)
    expect(findings.filter((f) => f.check === 'finite-numbers')).toEqual([
      {
        check: 'finite-numbers',
        file: 'scores.json',
        message:
          'trials[1].scores[0].citations[1] is not a finite number (a literal too large for a double, such as 1e400, reads as Infinity)',
      },
      {
        check: 'finite-numbers',
        file: 'traces.jsonl',
        message:
          'line 1: payload.ratio is not a finite number (a literal too large for a double, such as 1e400, reads as Infinity)',
      },
    ])
  })

  it('prints each finding on its own line with its check name in --json', async () => {
    const dir = await fresh()
    await editScores(dir, (scores) => {
      scores.trials[5]!.passed = true
      scores.trials[2]!.eventCount += 5
    })
    await restampManifest(dir)
    const json = await runCli('validate-bundle', '--json', dir)
    expect(json.code).toBe(1)
    const report = JSON.parse(json.stdout) as ValidateBundleJson
    expect(checks(report.findings)).toEqual(['event-count', 'summary-matches', 'trial-outcome'])
    const text = await runCli('validate-bundle', dir)
    expect(text.code).toBe(1)
    expect(text.lines).toHaveLength(report.findings.length)
    expect(text.lines).toContain(
      'scores.json: trials[5] (task "task-2" trial 1 (benchmark "toy")): passed is true but its outcome is failed',
    )
  })
})
