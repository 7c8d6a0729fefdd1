import { TERMINATED_BY, TRIAL_OUTCOMES, type SummaryHead } from '../../core/index.ts'
import { percent } from '../format.ts'
import { markdownTable } from '../markdown-table.ts'

const TERMINATIONS = [...TERMINATED_BY, 'none'] as const

/** How trials came out (passed, failed, policy violation…) and how the agent's runs ended. */
export function outcomesSection(summary: SummaryHead): string {
  if (summary.n === 0) return '## Outcomes\n\nNo trials.'
  const share = (count: number) => percent(count / summary.n)
  const outcomeRows = TRIAL_OUTCOMES.flatMap((outcome) => {
    const count = summary.outcomes[outcome] ?? 0
    return count > 0 ? [[outcome, String(count), share(count)]] : []
  })
  const endRows = TERMINATIONS.flatMap((end) => {
    const count = summary.terminations[end] ?? 0
    return count > 0 ? [[end === 'none' ? 'none (no agent result)' : end, String(count), share(count)]] : []
  })
  return [
    '## Outcomes',
    '',
    markdownTable(['Outcome', 'Trials', 'Share'], outcomeRows, ['left', 'right', 'right']),
    '',
    '### How the runs ended',
    '',
    markdownTable(['Terminated by', 'Trials', 'Share'], endRows, ['left', 'right', 'right']),
  ].join('\n')
}
