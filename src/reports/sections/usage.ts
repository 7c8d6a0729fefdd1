import type { SummaryHead } from '../../core/index.ts'
import { DASH, decimal, integer, seconds, usd } from '../format.ts'
import { markdownTable } from '../markdown-table.ts'

/** Tokens, cost, wall time and turns: totals, mean and percentiles per trial, and what a solved task cost. */
export function usageSection(summary: SummaryHead): string {
  const { tokens, costUsd, wallSeconds, turns, perTrial, costPerSolved } = summary.usage
  const n = summary.n
  const mean = (total: number) => (n > 0 ? total / n : null)
  const rows = [
    ['Total', integer(tokens), usd(costUsd), seconds(wallSeconds), integer(turns)],
    [
      'Mean per trial',
      integer(mean(tokens)),
      usd(mean(costUsd)),
      seconds(mean(wallSeconds)),
      decimal(mean(turns), 1),
    ],
    ...(['p50', 'p95', 'max'] as const).map((at) => [
      `${at === 'max' ? 'Max' : at} per trial`,
      integer(perTrial.tokens[at]),
      usd(perTrial.costUsd[at]),
      seconds(perTrial.wallSeconds[at]),
      DASH,
    ]),
  ]
  return [
    '## Usage',
    '',
    markdownTable(['', 'Tokens', 'Cost (USD)', 'Wall (s)', 'Turns'], rows, [
      'left',
      'right',
      'right',
      'right',
      'right',
    ]),
    '',
    `**Cost per solved task:** ${usd(costPerSolved)} (total cost ÷ passed trials` +
      `${costPerSolved === null ? '; no trial passed' : ''}).`,
  ].join('\n')
}
