// The engine's hand-written payload check against the payload schemas it stands in for: it may only say "valid"
// where zod does, and then must return zod's own output (the schema's keys first, in its order, then the rest), or
// an event's bytes would depend on which path checked it. Inputs are the engine's JSON copies of what a runner emits.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TRACE_EVENT_KINDS, TracePayloads, type TraceEventKind } from '../../src/core/index.ts'
import { fastPayload } from '../../src/engine/payload-shape.ts'

const SEED = 20_251_203
const RUNS = 6_000

const json = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown)
const count = fc.nat({ max: 1000 })

/** Payloads each schema accepts, with optional keys sometimes absent and an extra key sometimes present. */
const valid: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  'agent.plan': fc.record({ text: fc.string() }),
  'agent.model_call': fc.record(
    {
      model: fc.string(),
      inputTokens: count,
      outputTokens: count,
      stopReason: fc.string(),
      text: fc.string(),
      status: fc.constantFrom('ok', 'error'),
      attempt: fc.integer({ min: 1, max: 5 }),
      error: fc.string(),
    },
    { requiredKeys: [] },
  ),
  'agent.tool_call': fc.record(
    { tool: fc.string({ minLength: 1 }), args: json, callId: fc.string() },
    { requiredKeys: ['tool', 'args'] },
  ),
  'agent.tool_result': fc.record(
    { tool: fc.string({ minLength: 1 }), result: json, isError: fc.boolean(), callId: fc.string() },
    { requiredKeys: ['tool', 'result'] },
  ),
  'agent.observation': fc.record({ text: fc.string() }),
  'agent.final_answer': fc.record({ answer: fc.string() }),
  'evaluator.score': fc.record({
    evaluatorId: fc.string(),
    score: fc.double({ noNaN: true, noDefaultInfinity: true }),
    passed: fc.boolean(),
  }),
  'evaluator.model_call': fc.record(
    {
      evaluatorId: fc.string(),
      model: fc.string(),
      attempt: fc.integer({ min: 1, max: 5 }),
      status: fc.constantFrom('ok', 'malformed', 'error'),
      latencyMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
      inputTokens: count,
      outputTokens: count,
      error: fc.string(),
    },
    { requiredKeys: ['evaluatorId', 'model', 'attempt', 'status', 'latencyMs'] },
  ),
  'policy.verdict': fc.record({ checkerId: fc.string(), verdict: fc.constantFrom('PASS', 'WARN', 'FAIL') }),
  'cost.tick': fc.record({ note: fc.string() }, { requiredKeys: [] }),
}
const KINDS = TRACE_EVENT_KINDS.filter((k) => k !== 'agent.terminal')

const oddValue = fc.oneof(
  fc.constantFrom(null, 0, -1, 1.5, '', 'x', [], {}, true, 'PASS', 'ok', 'error', 2 ** 53),
  fc.constantFrom({ __proto__key: 1 }, JSON.parse('{"__proto__":{"a":1}}') as unknown, [[[[1]]]]),
  json,
)

/** One kind's valid payload, shuffled in key order, with up to three keys set to odd values, removed or added. */
const input = fc
  .constantFrom(...KINDS)
  .chain((kind) =>
    fc.tuple(
      fc.constant(kind),
      valid[kind]!,
      fc.array(
        fc.tuple(
          fc.oneof(
            fc.constantFrom(...Object.keys(TracePayloads[kind].shape), 'extra', 'thrown', '__proto__'),
            fc.string(),
          ),
          fc.option(oddValue, { nil: 'remove' as const }),
        ),
        { maxLength: 3 },
      ),
      fc.boolean(),
    ),
  )
  .map(([kind, payload, edits, reverse]) => {
    const entries = Object.entries(payload)
    if (reverse) entries.reverse()
    const out: Record<string, unknown> = {}
    for (const [k, v] of entries) out[k] = v
    for (const [key, value] of edits) {
      if (value === 'remove') delete out[key]
      else Object.defineProperty(out, key, { value, enumerable: true, configurable: true, writable: true })
    }
    // What the engine hands over: its own JSON copy.
    return { kind, copy: JSON.parse(JSON.stringify(out)) as unknown }
  })

function sameAsZod(kind: TraceEventKind, copy: unknown): boolean {
  const fast = fastPayload(kind, copy)
  if (fast === undefined) return false
  const parsed = TracePayloads[kind].safeParse(copy)
  expect(parsed.success).toBe(true)
  if (!parsed.success) return false
  expect(fast).toStrictEqual(parsed.data)
  expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.data))
  expect(Object.keys(fast)).toEqual(Object.keys(parsed.data))
  return true
}

describe('fastPayload', () => {
  it('says valid only where the payload schema accepts, and then returns exactly its parsed output', () => {
    let accepted = 0
    let rejectedByZod = 0
    fc.assert(
      fc.property(input, ({ kind, copy }) => {
        if (sameAsZod(kind, copy)) accepted++
        else if (!TracePayloads[kind].safeParse(copy).success) rejectedByZod++
      }),
      { seed: SEED, numRuns: RUNS },
    )
    expect(accepted).toBeGreaterThan(RUNS / 4)
    expect(rejectedByZod).toBeGreaterThan(RUNS / 10)
  })

  it('takes the fast path for what the scripted runner emits', () => {
    const emitted: [TraceEventKind, unknown][] = [
      ['agent.plan', { text: 'add one' }],
      ['agent.tool_call', { callId: 'c1', args: { expr: '1 + 1' }, tool: 'calculator' }],
      ['agent.tool_result', { tool: 'calculator', result: '2' }],
      ['agent.final_answer', { answer: '2', note: 'kept' }],
      ['agent.model_call', { model: 'm', inputTokens: 3, outputTokens: 4, text: 'hi' }],
    ]
    for (const [kind, payload] of emitted) expect(sameAsZod(kind, payload), kind).toBe(true)
  })
})
