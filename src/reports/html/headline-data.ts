import type { SummaryHead } from '../../core/index.ts'
import { fraction, integer, settingsText } from '../format.ts'
import { headlineModel, type HeadlineRow } from '../headline-model.ts'
import type { HeadlineData, TableData, TaskLink } from './page-data.ts'
import type { TaskLookup } from '../summary-text.ts'
import { numberColumn, tableData, textColumn, type ColumnSpec } from './table-data.ts'

/** More names than this and a callout stops being read; the tasks table lists them all. */
export const MAX_CALLOUT_TASKS = 50

/**
 * The pass rate a reader quotes, with its interval and method, and the tasks the average hides: the shared
 * headline model, as report.md and the console summary show it.
 */
export function headlineData(
  summary: SummaryHead,
  repeatedTrials: boolean,
  lookup: TaskLookup,
): HeadlineData {
  const { headline, settings } = summary
  const model = headlineModel(summary)
  const pooled = model.pooled
  return {
    pooled: pooled !== null,
    scope: pooled?.scope ?? null,
    note: model.note,
    groups: model.grouped ? groupsTable(model.rows, model.level, model.otherPolicy) : null,
    rate: pooled?.primary.rate ?? '—',
    ci: pooled?.primary.ci ?? '—',
    level: model.level,
    method: pooled?.primary.method ?? '—',
    policy: model.policy,
    tasks: pooled?.primary.tasks ?? 0,
    trials: pooled?.primary.trials ?? 0,
    other: pooled ? `With ${model.otherPolicy}: ${pooled.other.rate} (${pooled.other.details}).` : '',
    passed: summary.passed,
    n: summary.n,
    neverPassed: taskLinks(headline.neverPassed.slice(0, MAX_CALLOUT_TASKS), lookup),
    neverPassedCount: headline.neverPassed.length,
    flakyCount: repeatedTrials ? headline.flaky.length : null,
    settings: settingsText(settings),
  }
}

/** One row per benchmark × target, with the texts of the shared model. */
function groupsTable(rows: readonly HeadlineRow[], level: string, otherPolicy: string): TableData {
  const columns: ColumnSpec<HeadlineRow>[] = [
    textColumn('benchmark', 'Benchmark', (r) => r.benchmarkId),
    textColumn('target', 'Target', (r) => r.target),
    {
      id: 'rate',
      label: 'Pass rate',
      numeric: true,
      value: (r) => r.primary.value,
      text: (r) => r.primary.rate,
    },
    textColumn('ci', `${level} CI`, (r) => r.primary.ci),
    textColumn('method', 'Interval', (r) => r.primary.method),
    numberColumn('tasks', 'Tasks', (r) => r.primary.tasks, integer),
    numberColumn('trials', 'Trials', (r) => r.primary.trials, integer),
    numberColumn('passed', 'Passed trials', (r) => r.passed, integer),
    numberColumn('neverPassed', 'Never passed', (r) => r.neverPassed, integer),
    {
      id: 'other',
      label: `With ${otherPolicy}`,
      numeric: true,
      value: (r) => r.other.value,
      text: (r) => `${r.other.rate} (${r.other.ci})`,
    },
  ]
  return tableData({ id: 'headline-groups', noun: 'group', columns, key: (r) => r.label }, rows)
}

/** `toy/broken (0/10)` per key, each opening its task. */
export function taskLinks(keys: readonly string[], lookup: TaskLookup): TaskLink[] {
  return keys.map((key) => {
    const found = lookup.get(key)
    return {
      label: found ? `${key} (${fraction(found.task.passed, found.task.trials)})` : key,
      task: found?.index ?? null,
    }
  })
}
