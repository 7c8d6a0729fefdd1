import type { BaselineComparison, MetricComparison, SummaryHead, TaskRef } from '../../core/index.ts'
import { confidenceLabel, DASH, percent, plural, points, pointsInterval, pValue } from '../format.ts'
import {
  brokenCounts,
  comparisonReason,
  metricName,
  taskKeyOf,
  testName,
  type TaskLookup,
  unpairedText,
} from '../summary-text.ts'
import type { ComparisonData, TaskLink } from './page-data.ts'
import { numberColumn, tableData, textColumn, type ColumnSpec } from './table-data.ts'

/** The run against its baseline, as report.md's comparison section has it; null when there is no baseline. */
export function comparisonData(summary: SummaryHead, lookup: TaskLookup): ComparisonData | null {
  const comparison = summary.comparison
  if (!comparison) return null
  const { settings, overall } = comparison
  const level = confidenceLabel(1 - settings.alpha)
  const baselineBenchmarks = comparison.baseline.benchmarks
  const columns: ColumnSpec<MetricComparison>[] = [
    textColumn('metric', 'Metric', metricName),
    numberColumn(
      'pairs',
      'Pairs',
      (m) => m.pairs,
      (v) => String(v ?? DASH),
    ),
    numberColumn('baseline', 'Baseline', (m) => m.baselineMean, percent),
    numberColumn('candidate', 'This run', (m) => m.candidateMean, percent),
    numberColumn('delta', 'Δ', (m) => m.delta, points),
    {
      id: 'deltaCi',
      label: `${level} CI of Δ`,
      numeric: true,
      value: (m) => m.deltaCi?.lower ?? null,
      text: (m) => pointsInterval(m.deltaCi),
    },
    textColumn('test', 'Test', testName),
    numberColumn('p', 'p', (m) => m.pValue, pValue),
    numberColumn(
      'mde',
      'MDE',
      (m) => m.minimumDetectableEffect,
      (v) => (v === null ? DASH : `${(v * 100).toFixed(1)} pp`),
    ),
    numberColumn('regressing', 'Regressing ≤', (m) => m.regressionRateUpper, percent),
    textColumn('verdict', 'Verdict', (m) => m.verdict),
  ]
  return {
    verdict: comparison.verdict,
    reason: comparisonReason(comparison),
    baseline:
      comparison.baseline.runId +
      (baselineBenchmarks.length > 0 ? ` (${baselineBenchmarks.join(', ')})` : ''),
    facts: [
      ['Paired tasks', String(comparison.pairedTasks)],
      ['Only in the baseline', unpairedText(comparison.baselineOnly)],
      ['Only in this run', unpairedText(comparison.candidateOnly)],
      ...(comparison.changedDatasets.length > 0
        ? [
            [
              'Dataset changed',
              `${comparison.changedDatasets.join(', ')}; only the tasks both runs share are compared`,
            ] as [string, string],
          ]
        : []),
      [
        'Settings',
        `α = ${settings.alpha}, largest acceptable drop ${(settings.maxDrop * 100).toFixed(1)} pp, ` +
          `at least ${plural(settings.minPairs, 'paired task')}, seed ${settings.seed}` +
          (settings.failOnBroken ? '; any broken task fails (failOnBroken)' : '') +
          (settings.forced ? '; forced: the benchmarks or their datasets differ' : ''),
      ],
    ],
    delta: points(overall.delta),
    deltaCi: `${level} CI ${pointsInterval(overall.deltaCi)}`,
    pValue: pValue(overall.pValue),
    test: testName(overall),
    metrics: tableData(
      { id: 'comparison', noun: 'metric', columns, key: (m) => m.evaluatorId ?? '(overall)' },
      [overall, ...comparison.evaluators],
    ),
    broken: comparison.broken.map((b) => {
      const key = taskKeyOf(b)
      return { label: `${key}: ${brokenCounts(b)}`, task: lookup.get(key)?.index ?? null }
    }),
    regressed: refLinks(worstFirst(overall.regressions), lookup),
    improved: refLinks(overall.improvements, lookup),
  }
}

function worstFirst(refs: readonly TaskRef[]): TaskRef[] {
  return [...refs].sort((a, b) => b.baseline - b.candidate - (a.baseline - a.candidate))
}

/** The tasks the comparison links to. */
export function comparisonTaskKeys(comparison: BaselineComparison | undefined): string[] {
  if (!comparison) return []
  const { broken, overall } = comparison
  return [...broken, ...overall.regressions, ...overall.improvements].map(taskKeyOf)
}

function refLinks(refs: readonly TaskRef[], lookup: TaskLookup): TaskLink[] {
  return refs.map((r) => {
    const key = taskKeyOf(r)
    return {
      label: `${key}: ${percent(r.baseline)} → ${percent(r.candidate)}`,
      task: lookup.get(key)?.index ?? null,
    }
  })
}
