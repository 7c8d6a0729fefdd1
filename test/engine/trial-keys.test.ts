import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checksumOf, type JsonValue, type TrialKeyParts } from '../../src/core/index.ts'
import { benchmarkKeys, trialKeys, trialLimits, type TrialKeyInput } from '../../src/engine/index.ts'

/**
 * The keys as every earlier version computed them, each part and key through checksumOf: the bundles a run resumes
 * were keyed so, and a key that differs runs the trial again.
 */
function keysBefore(input: TrialKeyInput) {
  const parts: TrialKeyParts = {
    task: checksumOf({ benchmark: input.benchmark.id, task: input.task.id, checksum: input.task.checksum }),
    runner: checksumOf(input.runner),
    limits: checksumOf(input.limits),
    evaluators: checksumOf(
      (input.evaluators ?? []).map((e) => ({ id: e.id, kind: e.kind, config: e.config ?? null })),
    ),
    policy: checksumOf((input.policy ?? []).map((p) => ({ id: p.id, config: p.config ?? null }))),
    grader: checksumOf(input.grader ?? null),
  }
  const agent = checksumOf({
    trial: input.trial,
    task: parts.task,
    runner: parts.runner,
    limits: parts.limits,
  })
  const score = checksumOf({
    agent,
    evaluators: parts.evaluators,
    policy: parts.policy,
    grader: parts.grader,
  })
  return { agent, score, parts }
}

const text = fc.string({ maxLength: 12 })
const config = fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>, { maxKeys: 4 })
const limits = fc.record(
  {
    maxTokens: fc.nat(),
    maxTurns: fc.nat(),
    maxWallSeconds: fc.double({ min: 0.001, max: 1e6, noNaN: true }),
    maxCostUsd: fc.double({ min: 0, max: 1e3, noNaN: true }),
  },
  { requiredKeys: [] },
)
const kind = fc.constantFrom(
  'deterministic',
  'llm_judge',
  'tool_use',
  'state_based',
  'trace_quality' as const,
)
const shared = fc.record({
  benchmark: fc.record({ id: text.filter((s) => s.length > 0) }),
  runner: fc.record({ name: text, kind: text, config }),
  evaluators: fc.option(
    fc.array(fc.record({ id: text, kind, config: fc.option(config, { nil: undefined }) })),
    {
      nil: undefined,
    },
  ),
  policy: fc.option(fc.array(fc.record({ id: text, config: fc.option(config, { nil: undefined }) })), {
    nil: undefined,
  }),
  grader: fc.option(text, { nil: undefined }),
})
const own = fc.record({
  task: fc.record({ id: text, checksum: fc.stringMatching(/^[0-9a-f]{64}$/) }),
  trial: fc.nat(1000),
  limits,
})

describe('trial keys', () => {
  it('equal the keys earlier versions computed, for any benchmark, task, trial and limits', () => {
    fc.assert(
      fc.property(shared, fc.array(own, { minLength: 1, maxLength: 5 }), (s, trials) => {
        const keyed = benchmarkKeys(s)
        for (const t of trials) {
          const input = { ...s, ...t }
          expect(keyed(t)).toEqual(keysBefore(input))
          expect(trialKeys(input)).toEqual(keysBefore(input))
        }
      }),
      { numRuns: 200 },
    )
  })

  it('key each trial under its own limits when a benchmark keys many under one', () => {
    const s = { benchmark: { id: 'b' }, runner: { name: 'r', kind: 'k', config: {} } }
    const keyed = benchmarkKeys(s)
    const task = { id: 't', checksum: 'a'.repeat(64) }
    const run = trialLimits({ maxTokens: 10 }, undefined)
    const tighter = trialLimits({ maxTokens: 10 }, { maxTokens: 5 })
    const loose = { maxTokens: 10 }
    for (const l of [run, tighter, run, loose, tighter]) {
      expect(keyed({ task, trial: 0, limits: l })).toEqual(keysBefore({ ...s, task, trial: 0, limits: l }))
    }
    // An unfrozen limits object changed between trials is keyed as it is now.
    loose.maxTokens = 1
    expect(keyed({ task, trial: 0, limits: loose })).toEqual(
      keysBefore({ ...s, task, trial: 0, limits: loose }),
    )
  })
})
