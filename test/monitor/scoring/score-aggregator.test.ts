// The window's aggregates folded from its spill (8 bytes a score) equal aggregateScores over the scores held whole,
// on random windows: any mix of evaluators and levels, scores and skips, verdicts given or not, traces skipped
// before scoring.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import type { MonitorLevel } from '../../../src/core/index.ts'
import {
  aggregateScores,
  ALL_EVALUATORS,
  createScoreAggregator,
  openScoreSpill,
  type MonitorScore,
} from '../../../src/monitor/index.ts'

const dir = await mkdtemp(join(tmpdir(), 'aeo-score-aggregator-'))
afterAll(() => rm(dir, { recursive: true, force: true }))

const NAMES = ['Quality', 'Latency', 'Tools']
const LEVELS: MonitorLevel[] = ['trace', 'agent', 'llm']
/** Every name at every level, and one spec nothing scores. */
const SPECS = [
  ...NAMES.flatMap((displayName, i) =>
    LEVELS.map((level) => ({ identifier: `e${i}-${level}`, displayName, level })),
  ),
  { identifier: 'unused', displayName: 'Unused', level: 'trace' as const },
]

// The wire has no -0 (JSON writes it as 0), so neither do the generated scores.
const value = fc.double({ min: 0, max: 1, noNaN: true }).map((v) => (Object.is(v, -0) ? 0 : v))
const scoreArb: fc.Arbitrary<Drawn> = fc.record({
  name: fc.constantFrom(...NAMES),
  level: fc.constantFrom(...LEVELS),
  value: fc.option(fc.oneof(value, fc.constantFrom(0, 0.5, 1)), { nil: null, freq: 5 }),
  passed: fc.option(fc.boolean(), { nil: undefined }),
})
const skippedArb = fc.dictionary(fc.constantFrom(...NAMES, ALL_EVALUATORS, 'nobody'), fc.nat(5))

interface Drawn {
  name: string
  level: MonitorLevel
  value: number | null
  passed: boolean | undefined
}

function monitorScore(s: Drawn, i: number): MonitorScore {
  return {
    id: `id-${i}`,
    identifier: 'x',
    spanId: `span-${i}`,
    individual: {
      evaluatorName: s.name,
      level: s.level,
      traceId: `trace-${i >> 1}`,
      ...(s.value === null ? { skipReason: 'could not judge' } : { score: s.value }),
    },
    costUsd: 0,
    ...(s.passed === undefined ? {} : { passed: s.passed }),
  }
}

describe('createScoreAggregator', () => {
  it('folded from the spill, equals aggregateScores over the whole scores, on random windows', async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(scoreArb, { maxLength: 120 }), skippedArb, async (drawn, skippedObject) => {
        const scores = drawn.map(monitorScore)
        const skipped = new Map(Object.entries(skippedObject))
        const spill = await openScoreSpill(join(dir, `spill-${run++}.jsonl`))
        try {
          // Two scores a trace, as a window appends them.
          for (let at = 0; at < scores.length; at += 2)
            await spill.append(`trace-${at >> 1}`, scores.slice(at, at + 2))
          const aggregator = createScoreAggregator(SPECS)
          for await (const score of spill.scores()) aggregator.add(score)
          expect(spill.count).toBe(scores.length)
          expect(aggregator.result(skipped)).toEqual(aggregateScores(scores, SPECS, skipped))
        } finally {
          await spill.remove()
        }
      }),
      { numRuns: 150 },
    )
  })

  it('keeps numbers, not scores: folding the same score twice counts it twice', () => {
    const aggregator = createScoreAggregator(SPECS)
    const one = monitorScore({ name: 'Quality', level: 'trace', value: 0.25, passed: undefined }, 0)
    aggregator.add(one)
    aggregator.add(one)
    const quality = aggregator.result(new Map()).find((a) => a.identifier === 'e0-trace')!
    expect(quality).toMatchObject({ count: 2, aggregations: { mean: 0.25, pass_rate: 0 } })
  })
})
