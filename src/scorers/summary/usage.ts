import {
  heldColumns,
  type Distribution,
  type NumberColumn,
  type NumberColumns,
  type UsageSummary,
} from '../../core/index.ts'
import { percentile } from '../stats/index.ts'
import { extreme } from './reduce.ts'
import type { SummarizedTrial } from './task-groups.ts'

/** The run's usage, a trial at a time: totals summed in the order given, per-trial figures kept for percentiles. */
export class UsageFold {
  private readonly total = { tokens: 0, costUsd: 0, wallSeconds: 0, turns: 0 }
  private readonly costUsd: NumberColumn
  private readonly tokens: NumberColumn
  private readonly wallSeconds: NumberColumn
  private passed = 0

  constructor(columns: NumberColumns = heldColumns) {
    this.costUsd = columns.column()
    this.tokens = columns.column()
    this.wallSeconds = columns.column()
  }

  add({ usage, passed }: Pick<SummarizedTrial, 'usage' | 'passed'>): void {
    this.total.tokens += usage.tokens
    this.total.costUsd += usage.costUsd
    this.total.wallSeconds += usage.wallSeconds
    this.total.turns += usage.turns
    this.costUsd.push(usage.costUsd)
    this.tokens.push(usage.tokens)
    this.wallSeconds.push(usage.wallSeconds)
    if (passed) this.passed++
  }

  summary(): UsageSummary {
    return {
      ...this.total,
      perTrial: {
        costUsd: distribution(this.costUsd.values()),
        tokens: distribution(this.tokens.values()),
        wallSeconds: distribution(this.wallSeconds.values()),
      },
      costPerSolved: this.passed === 0 ? null : this.total.costUsd / this.passed,
    }
  }
}

function distribution(values: readonly number[]): Distribution {
  return {
    p50: percentile(values, 0.5),
    p95: percentile(values, 0.95),
    max: values.length === 0 ? null : extreme(values, Math.max),
  }
}
