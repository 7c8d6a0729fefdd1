// Data the engine builds itself (trace events, scores it fills in, the trial record) is typed, not parsed: a zod
// parse costs more than the rest of a fast trial. What comes from code we do not own is checked once, where it
// enters: each payload a runner emits, each score and verdict an evaluator or checker returns, a runner's info and
// the limits once per object.
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  AgentResult,
  BenchmarkInfo,
  EvaluatorScore,
  PolicyVerdict,
  ResourceLimits,
  RunnerInfo,
  TaskSpec,
  TracePayloads,
  TraceEvent,
  TrialRecord,
  Usage,
  defineTask,
} from '../../src/core/index.ts'
import { mockRunner } from '../../src/agents/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { matchesExpected } from '../../src/evaluators/index.ts'
import { costCeiling, toolAccess } from '../../src/policy/index.ts'
import { MemoryTraceStore } from '../../src/stores/index.ts'
import { benchmark, fixedChecker } from './helpers.ts'

const N = 20
const tasks = Array.from({ length: N }, (_, i) =>
  defineTask({ id: `task-${i}`, benchmark: 'toy', prompt: `What is ${i} + 1?`, expected: String(i + 1) }),
)
// The pipeline benchmark's script: a plan, one tool round trip, the answer.
const runner = mockRunner({
  scripts: Object.fromEntries(
    tasks.map((t) => [
      t.id,
      {
        steps: [
          { kind: 'plan', text: 'add one', tokens: 20, costUsd: 0.0001 },
          { kind: 'tool_call', tool: 'calculator', args: { expr: t.prompt } },
          { kind: 'tool_result', tool: 'calculator', result: t.expected as string },
          { kind: 'final_answer', answer: t.expected as string, tokens: 30, costUsd: 0.0002 },
        ],
      },
    ]),
  ),
})

type Counted = Record<string, { parse: number; safeParse: number }>

/** Counts the direct parse and safeParse calls of each schema from here on. */
function countParses(schemas: Record<string, { parse: unknown; safeParse: unknown }>): Counted {
  const counts: Counted = {}
  for (const [name, schema] of Object.entries(schemas)) {
    counts[name] = { parse: 0, safeParse: 0 }
    for (const method of ['parse', 'safeParse'] as const) {
      const original = schema[method] as (...args: unknown[]) => unknown
      vi.spyOn(schema as Record<typeof method, (...args: unknown[]) => unknown>, method).mockImplementation(
        (...args) => {
          counts[name]![method]++
          return original(...args)
        },
      )
    }
  }
  return counts
}

const payloadSchemas = Object.fromEntries(Object.entries(TracePayloads).map(([k, s]) => [`payload ${k}`, s]))

afterEach(() => {
  vi.restoreAllMocks()
})

describe('a trial validates what enters from user code once, and nothing the engine built', () => {
  it('makes no zod parse of engine-built data over N trials of the scripted runner', async () => {
    const limits = { maxTokens: 10_000, maxWallSeconds: 30 }
    const evaluators = [matchesExpected()]
    const policy = [costCeiling({ maxUsd: 1 }), toolAccess({ allow: ['calculator'] })]
    const counts = countParses({
      TrialRecord,
      TraceEvent,
      AgentResult,
      Usage,
      EvaluatorScore,
      PolicyVerdict,
      RunnerInfo,
      ResourceLimits,
      TaskSpec,
      BenchmarkInfo,
      ...payloadSchemas,
    })
    const store = new MemoryTraceStore()
    for (const [trial, task] of tasks.entries()) {
      const { record } = await runTrial({
        runId: 'run-1',
        benchmark,
        task,
        trial,
        runner,
        evaluators,
        policy,
        limits,
        traceStore: store,
      })
      expect(record.outcome, record.warnings.join('\n')).toBe('passed')
    }
    const total = (name: string) => counts[name]!.parse + counts[name]!.safeParse
    // Built by the engine: never parsed.
    for (const name of ['TrialRecord', 'TraceEvent', 'AgentResult', 'Usage', 'TaskSpec', 'BenchmarkInfo'])
      expect(total(name), name).toBe(0)
    for (const kind of ['agent.terminal', 'evaluator.score', 'policy.verdict'])
      expect(total(`payload ${kind}`), kind).toBe(0)
    expect(counts.EvaluatorScore!.parse).toBe(0)
    expect(counts.PolicyVerdict!.parse).toBe(0)
    // From user code: once where it enters.
    // A score is checked once too, by src/engine/score-shape.ts: zod is asked only for what that check is unsure
    // of (test/engine/score-shape.test.ts), and a real evaluator's score is never that.
    expect(counts.EvaluatorScore!.safeParse).toBe(0)
    expect(counts.PolicyVerdict!.safeParse).toBe(N * policy.length)
    const emitted = Object.keys(TracePayloads).reduce((n, kind) => n + total(`payload ${kind}`), 0)
    // Each payload a runner emits is checked once too, by src/engine/payload-shape.ts: zod only for what that check
    // is unsure of (test/engine/payload-shape.test.ts), and the scripted runner's payloads are never that.
    expect(emitted).toBe(0)
    // Once per object, not once per trial.
    expect(total('RunnerInfo')).toBe(1)
    expect(total('ResourceLimits')).toBe(1)
  })

  it('builds the scores and verdicts of an evaluator and a checker that fail without parsing them', async () => {
    const counts = countParses({ EvaluatorScore, PolicyVerdict })
    const throwing = {
      id: 'broken',
      kind: 'deterministic' as const,
      evaluate: () => {
        throw new Error('no judge today')
      },
    }
    const invalid = {
      id: 'out-of-range',
      kind: 'deterministic' as const,
      evaluate: () => ({ score: 2, passed: true, explanation: 'too high' }),
    }
    const crashing = {
      id: 'crashing',
      check: () => {
        throw new Error('cannot look')
      },
    }
    const { record } = await runTrial({
      runId: 'run-1',
      benchmark,
      task: tasks[0]!,
      trial: 0,
      runner,
      evaluators: [throwing, invalid],
      policy: [crashing, fixedChecker('PASS')],
      traceStore: new MemoryTraceStore(),
    })
    expect(record.outcome).toBe('infra_failure')
    expect(record.scores.map((s) => [s.evaluatorId, s.error !== null])).toEqual([
      ['broken', true],
      ['out-of-range', true],
    ])
    expect(record.scores[1]!.explanation).toMatch(/returned an invalid score \(score: /)
    // What the schema fills in, filled in by the engine: the record still reads back as a valid one.
    expect(TrialRecord.safeParse(record).success).toBe(true)
    expect(record.verdicts[0]).toMatchObject({ checkerId: 'crashing', verdict: 'WARN' })
    expect(counts.EvaluatorScore!.parse).toBe(0)
    expect(counts.PolicyVerdict!.parse).toBe(0)
    // The invalid score was checked once (the throwing evaluator returned nothing to check).
    expect(counts.EvaluatorScore!.safeParse).toBe(1)
  })

  it('writes the record a parse would have written, field for field and in the same order', async () => {
    const { record } = await runTrial({
      runId: 'run-1',
      benchmark,
      task: tasks[3]!,
      trial: 2,
      runner,
      evaluators: [matchesExpected()],
      policy: [costCeiling({ maxUsd: 1 })],
      limits: { maxTokens: 100 },
      traceStore: new MemoryTraceStore(),
    })
    expect(JSON.stringify(record)).toBe(JSON.stringify(TrialRecord.parse(record)))
  })
})
