import type { TaskCell, TaskHistoryKind, TaskHistoryRow } from '../../src/view/api.ts'

/** The kinds in the order a reader needs them: what never worked, what is unreliable, what just changed. */
export const KIND_ORDER: readonly TaskHistoryKind[] = ['never-passed', 'flaky', 'flipped', 'stable']

export const KIND_TEXT: Record<TaskHistoryKind, string> = {
  'never-passed': 'Never passed',
  flaky: 'Flaky across runs',
  flipped: 'Flipped in the last run',
  stable: 'Stable',
}

/** The rows by kind, in KIND_ORDER, by task key within a kind; kinds with no task are left out. */
export function groupByKind(
  rows: readonly TaskHistoryRow[],
): { kind: TaskHistoryKind; rows: TaskHistoryRow[] }[] {
  return KIND_ORDER.map((kind) => ({
    kind,
    rows: rows.filter((r) => r.kind === kind).sort((a, b) => a.taskKey.localeCompare(b.taskKey)),
  })).filter((g) => g.rows.length > 0)
}

export type CellOutcome = 'pass' | 'split' | 'fail' | 'absent'

export function outcomeOf(cell: TaskCell | null): CellOutcome {
  if (!cell || cell.trials === 0) return 'absent'
  if (cell.passed === cell.trials) return 'pass'
  return cell.passed === 0 ? 'fail' : 'split'
}

/** A flaky task's evidence: the runs where all its trials passed, some did, none did. */
export function evidence(
  row: TaskHistoryRow,
  runs: readonly string[],
): Record<'pass' | 'split' | 'fail', string[]> {
  const found: Record<'pass' | 'split' | 'fail', string[]> = { pass: [], split: [], fail: [] }
  row.cells.forEach((cell, i) => {
    const outcome = outcomeOf(cell)
    const run = runs[i]
    if (outcome !== 'absent' && run !== undefined) found[outcome].push(run)
  })
  return found
}
