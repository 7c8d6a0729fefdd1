import { describe, expect, it } from 'vitest'
import { AggregatedScore, type MonitorEvaluatorSpec } from '../../../src/core/index.ts'
import { parseMonitorEvaluators } from '../../../src/evaluators/index.ts'
import { aggregateScores, ALL_EVALUATORS, type MonitorScore } from '../../../src/monitor/index.ts'

const specs: MonitorEvaluatorSpec[] = parseMonitorEvaluators(
  JSON.stringify([
    { identifier: 'trace-quality', displayName: 'Quality' },
    { identifier: 'latency', displayName: 'Latency', level: 'agent', config: { max_latency_ms: 100 } },
    { identifier: 'tool-use', displayName: 'Tools', level: 'llm' },
  ]),
  '--evaluators',
)

function score(
  name: string,
  level: 'trace' | 'agent' | 'llm',
  value: number | null,
  passed?: boolean,
): MonitorScore {
  return {
    id: `${name}-${value}`,
    identifier: 'x',
    spanId: 'aaaaaaaaaaaaaaaa',
    individual: {
      evaluatorName: name,
      level,
      traceId: 't',
      ...(value === null ? { skipReason: 'could not judge: 500' } : { score: value }),
    },
    costUsd: 0,
    ...(passed === undefined ? {} : { passed }),
  }
}

describe('aggregateScores', () => {
  it('mean, median, p90, min, max and pass_rate per evaluator and level, skipped ones counted apart', () => {
    const scores = [
      score('Quality', 'trace', 1, true),
      score('Quality', 'trace', 0.5, false),
      score('Quality', 'trace', 0.25, false),
      score('Quality', 'trace', 0, false),
      score('Quality', 'trace', null),
      // Another level's scores of the same name are not this evaluator's.
      score('Quality', 'agent', 1, true),
      score('Latency', 'agent', 1),
      score('Latency', 'agent', 0.4),
    ]
    const [quality, latency, tools] = aggregateScores(scores, specs, new Map([['Quality', 2]]))
    for (const a of [quality, latency, tools]) expect(AggregatedScore.safeParse(a).success).toBe(true)
    expect(quality).toMatchObject({ identifier: 'trace-quality', evaluatorName: 'Quality', level: 'trace' })
    expect(quality?.count).toBe(4)
    expect(quality?.skippedCount).toBe(3)
    const { p90, ...exact } = quality!.aggregations
    expect(exact).toEqual({ mean: 0.4375, median: 0.375, min: 0, max: 1, pass_rate: 0.25 })
    // rank (4 - 1) · 0.9 = 2.7: 0.7 of the way from 0.5 to 1.
    expect(p90).toBeCloseTo(0.85, 12)
    // Without a verdict a score passes at 0.5 or above.
    expect(latency?.aggregations['pass_rate']).toBe(0.5)
    expect(tools).toMatchObject({ level: 'llm', count: 0, skippedCount: 0 })
    expect(Object.values(tools!.aggregations)).toEqual([null, null, null, null, null, null])
  })

  it('counts a trace that could not be read against every evaluator', () => {
    const aggregated = aggregateScores([], specs, new Map([[ALL_EVALUATORS, 3]]))
    expect(aggregated.map((a) => a.skippedCount)).toEqual([3, 3, 3])
  })
})
