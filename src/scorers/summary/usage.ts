import type { Distribution, UsageSummary } from '../../core/index.ts'
import type { SummarizedTrial } from './task-groups.ts'
import { percentile } from '../stats/index.ts'

export function usageSummary(trials: readonly SummarizedTrial[]): UsageSummary {
  const total = { tokens: 0, costUsd: 0, wallSeconds: 0, turns: 0 }
  for (const { usage } of trials) {
    total.tokens += usage.tokens
    total.costUsd += usage.costUsd
    total.wallSeconds += usage.wallSeconds
    total.turns += usage.turns
  }
  const passed = trials.filter((t) => t.passed).length
  return {
    ...total,
    perTrial: {
      costUsd: distribution(trials.map((t) => t.usage.costUsd)),
      tokens: distribution(trials.map((t) => t.usage.tokens)),
      wallSeconds: distribution(trials.map((t) => t.usage.wallSeconds)),
    },
    costPerSolved: passed === 0 ? null : total.costUsd / passed,
  }
}

function distribution(values: readonly number[]): Distribution {
  return {
    p50: percentile(values, 0.5),
    p95: percentile(values, 0.95),
    max: values.length === 0 ? null : Math.max(...values),
  }
}
