// The validator's hand-written schema tests (isTraceEvent, isOtlpTraceRequest) and its one-walk plainness test
// (isPlainValue) against what they stand in for: zod's TraceEvent and OtlpTraceRequest, deeperThan and
// nonFinitePath. They may only ever say "valid" where those do (then the findings cannot differ: the validator asks
// zod whenever they say no), and must say it for what a real run writes (or they would not speed anything up).
// Values come from a bundle written with its derived files, damaged by the fuzz test's JSON and byte edits.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { derivedRunFiles } from '../../reporters/derived-files.ts'
import { writeBundle } from '../../src/bundles/index.ts'
import { MAX_JSON_DEPTH } from '../../src/bundles/limits.ts'
import { isOtlpTraceRequest } from '../../src/bundles/otlp-shape.ts'
import { isPlainValue } from '../../src/core/plain-values.ts'
import { isTraceEvent } from '../../src/core/trace-event-shape.ts'
import { deeperThan, nonFinitePath } from '../../src/bundles/untrusted-json.ts'
import { OtlpTraceRequest, TRACE_EVENT_KINDS, TraceEvent } from '../../src/core/index.ts'
import { bundleInput, tempDir } from './fixtures.ts'
import { applyByteEdit, applyJsonEdit, byteEdit, jsonEdit, type Edit } from './mutations.ts'

const SEED = 20_251_201
const RUNS = 4_000

let work: Awaited<ReturnType<typeof tempDir>>
let traceLines: string[]
let spanLines: string[]

const base = {
  runId: 'r',
  benchmark: 'b',
  taskId: 't',
  trial: 0,
  step: 0,
  ts: '2025-01-02T03:04:05.000Z',
  costDeltaUsd: 0,
  tokensDelta: 0,
  spanId: '00000000000000ab',
}

/** Every kind with every optional field set, beside the fixture's own events: each branch of isTraceEvent. */
const FULL_EVENTS = [
  { kind: 'agent.plan', payload: { text: 'plan', extra: [1, { a: null }] } },
  {
    kind: 'agent.model_call',
    payload: {
      model: 'm',
      inputTokens: 1,
      outputTokens: 2,
      stopReason: 'end',
      text: 'hi',
      status: 'error',
      attempt: 2,
      error: '429',
    },
  },
  { kind: 'agent.tool_call', payload: { tool: 'calc', args: { expr: '2+2', deep: [[1]] }, callId: 'c1' } },
  { kind: 'agent.tool_result', payload: { tool: 'calc', result: null, isError: false, callId: 'c1' } },
  { kind: 'agent.observation', payload: { text: 'seen' } },
  { kind: 'agent.final_answer', payload: { answer: '4' } },
  { kind: 'agent.terminal', payload: { terminatedBy: 'limit_turns', success: false, error: 'turns' } },
  {
    kind: 'agent.terminal',
    payload: {
      terminatedBy: 'agent_error',
      success: false,
      error: 'x',
      thrown: { type: 'Error', message: 'x', stack: [] },
    },
  },
  { kind: 'evaluator.score', payload: { evaluatorId: 'e', score: 0.5, passed: false } },
  {
    kind: 'evaluator.model_call',
    payload: {
      evaluatorId: 'judge',
      model: 'm',
      attempt: 1,
      status: 'malformed',
      latencyMs: 3.5,
      inputTokens: 10,
      outputTokens: 3,
      error: 'bad json',
    },
  },
  { kind: 'policy.verdict', payload: { checkerId: 'p', verdict: 'WARN' } },
  { kind: 'cost.tick', payload: { note: 'n' } },
  { kind: 'cost.tick', payload: {} },
].map((event, step) => JSON.stringify({ ...base, step, ...event }))

beforeAll(async () => {
  work = await tempDir('aeo-fast-shapes-')
  const input = await bundleInput(join(work.path, 'bundle'))
  const derived = derivedRunFiles(
    { metadata: input.metadata, trials: input.trials, summary: input.summary },
    {},
  )
  const dir = await writeBundle({ ...input, derivedFiles: derived.derivedFiles })
  const lines = async (file: string) => (await readFile(join(dir, file), 'utf8')).trim().split('\n')
  traceLines = [...(await lines('traces.jsonl')), ...FULL_EVENTS]
  spanLines = await lines('spans.jsonl')
})
afterAll(async () => work.remove())

/** The line after the edits, parsed; undefined when it is no longer JSON. */
function damaged(file: string, line: string, edits: readonly Edit[]): unknown {
  let bytes: Buffer = Buffer.from(line)
  for (const edit of edits) {
    bytes = 'line' in edit ? (applyJsonEdit(file, bytes, edit) ?? bytes) : applyByteEdit(bytes, edit)
  }
  try {
    return { value: JSON.parse(bytes.toString('utf8')) as unknown }
  } catch {
    return undefined
  }
}

const edits = fc.array(fc.oneof({ weight: 3, arbitrary: jsonEdit }, { weight: 1, arbitrary: byteEdit }), {
  minLength: 1,
  maxLength: 3,
})

describe('the fast shape tests', () => {
  it('say "valid" for every event and span request a run writes, and for every event kind', () => {
    expect(new Set(FULL_EVENTS.map((l) => (JSON.parse(l) as { kind: string }).kind))).toEqual(
      new Set(TRACE_EVENT_KINDS),
    )
    for (const line of traceLines) {
      const value: unknown = JSON.parse(line)
      expect(TraceEvent.safeParse(value).success).toBe(true)
      expect(isPlainValue(value, MAX_JSON_DEPTH)).toBe(true)
      // A thrown error is left to zod on purpose (rare); every other event takes the fast path.
      expect(isTraceEvent(value)).toBe(!line.includes('"thrown"'))
    }
    for (const line of spanLines) {
      const value: unknown = JSON.parse(line)
      expect(isPlainValue(value, MAX_JSON_DEPTH)).toBe(true)
      expect(isOtlpTraceRequest(value)).toBe(true)
    }
  })

  it('never say "valid" where zod, deeperThan or nonFinitePath would find a problem (fuzz mutations)', () => {
    let fastAccepted = 0
    let zodRejected = 0
    fc.assert(
      fc.property(fc.nat(), fc.boolean(), edits, (pick, spans, list) => {
        const lines = spans ? spanLines : traceLines
        const file = spans ? 'spans.jsonl' : 'traces.jsonl'
        const parsed = damaged(file, lines[pick % lines.length]!, list) as { value: unknown } | undefined
        if (!parsed) return
        const { value } = parsed
        if (!isPlainValue(value, MAX_JSON_DEPTH)) return
        expect(nonFinitePath(value)).toBeUndefined()
        expect(deeperThan(value, MAX_JSON_DEPTH)).toBe(false)
        const schema = spans ? OtlpTraceRequest : TraceEvent
        const fast = spans ? isOtlpTraceRequest(value) : isTraceEvent(value)
        const accepted = schema.safeParse(value).success
        if (fast) {
          fastAccepted += 1
          expect(accepted).toBe(true)
        }
        if (!accepted) zodRejected += 1
      }),
      { seed: SEED, numRuns: RUNS },
    )
    // Both sides were reached: the property held over valid and invalid values alike.
    expect(fastAccepted).toBeGreaterThan(RUNS / 20)
    expect(zodRejected).toBeGreaterThan(RUNS / 20)
  })

  it('isPlainValue says no to what deeperThan or nonFinitePath would report', () => {
    const deep = JSON.parse(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`) as unknown
    expect(deeperThan(deep, MAX_JSON_DEPTH)).toBe(true)
    expect(isPlainValue(deep, MAX_JSON_DEPTH)).toBe(false)
    const justDeepEnough = JSON.parse(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`) as unknown
    expect(isPlainValue(justDeepEnough, MAX_JSON_DEPTH)).toBe(true)
    const infinite = JSON.parse('{"a":[1,{"b":1e400}]}') as unknown
    expect(nonFinitePath(infinite)).toBe('a[1].b')
    expect(isPlainValue(infinite, MAX_JSON_DEPTH)).toBe(false)
    expect(isPlainValue(JSON.parse('{"__proto__":{"a":1}}'), MAX_JSON_DEPTH)).toBe(false)
  })
})
