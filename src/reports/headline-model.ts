import { canonicalJson, type HeadlineFigure, type HeadlineGroup, type SummaryHead } from '../core/index.ts'
import {
  clip,
  confidenceLabel,
  errorPolicyText,
  intervalMethod,
  percent,
  percentInterval,
  plural,
} from './format.ts'
import { figureDetails } from './summary-text.ts'

/*
 * The headline every renderer shows (console summary, report.md, report.html, the GitHub job summary), computed
 * once here so that they cannot disagree: one figure per benchmark × target, and a pooled figure only where it
 * describes one agent.
 */

/** A headline figure as the renderers print it. */
export interface FigureText {
  /** The rate itself; null when no task is left to compute it over. */
  value: number | null
  rate: string
  /** `89.5–99.6%`, or a dash when undefined. */
  ci: string
  method: string
  tasks: number
  trials: number
  /** `95% CI 89.5–99.6%, Wilson; 50 tasks, 500 trials`. */
  details: string
}

export interface HeadlineRow {
  benchmarkId: string
  /** The target's name, told apart from another of the same name by its settings. */
  target: string
  /** `benchmark · target`. */
  label: string
  /** Under the run's error policy, then the other one. */
  primary: FigureText
  other: FigureText
  passed: number
  neverPassed: number
  flaky: number
}

export interface HeadlineModel {
  level: string
  /** The run's error policy and the other one, as phrases. */
  policy: string
  otherPolicy: string
  /** One row per benchmark × target; more than one only when the run mixes them. */
  rows: HeadlineRow[]
  /** Whether the run mixes benchmarks or targets: then the rows are the headline. */
  grouped: boolean
  /**
   * The figure over every task of the run, when it describes one target; null when several targets ran. `scope`
   * says what it pools when the run is grouped (several benchmarks of one target).
   */
  pooled: { primary: FigureText; other: FigureText; scope: string | null } | null
  /** Why there is no pooled figure, as a sentence; null when there is one. */
  note: string | null
}

export function headlineModel(summary: SummaryHead): HeadlineModel {
  const { headline, settings } = summary
  const level = confidenceLabel(settings.confidence)
  const exclude = settings.errorPolicy === 'exclude'
  const other = (g: Pick<HeadlineGroup, 'infraAsFailure' | 'infraExcluded'>) =>
    exclude ? g.infraAsFailure : g.infraExcluded
  const groups = headline.groups ?? []
  const names = targetNames(groups)
  const rows = groups.map((g, i) => ({
    benchmarkId: g.benchmarkId,
    target: names[i]!,
    label: `${g.benchmarkId} · ${names[i]!}`,
    primary: figureText(g.primary, level),
    other: figureText(other(g), level),
    passed: g.passed,
    neverPassed: g.neverPassed,
    flaky: g.flaky,
  }))
  const grouped = rows.length > 1
  // A summary written before groups existed has no `pooled`: its figure is the only one there is.
  const meaningful = headline.pooled ?? true
  const targets = new Set(groups.map((g) => canonicalJson(g.target))).size
  const benchmarks = new Set(groups.map((g) => g.benchmarkId)).size
  return {
    level,
    policy: errorPolicyText(settings.errorPolicy),
    otherPolicy: errorPolicyText(exclude ? 'count-as-failure' : 'exclude'),
    rows,
    grouped,
    pooled: meaningful
      ? {
          primary: figureText(headline.primary, level),
          other: figureText(other(headline), level),
          scope: grouped ? `all ${benchmarks} benchmarks of ${names[0] ?? 'the target'}` : null,
        }
      : null,
    note: meaningful
      ? null
      : `No pooled pass rate: ${targets} targets ran, and a rate over different agents describes none of them.`,
  }
}

function figureText(figure: HeadlineFigure, level: string): FigureText {
  return {
    value: figure.rate,
    rate: percent(figure.rate),
    ci: percentInterval(figure.ci),
    method: intervalMethod(figure.method),
    tasks: figure.tasks,
    trials: figure.trials,
    details: figureDetails(figure, level),
  }
}

/**
 * Each group's target name. Two targets of one name (other settings) get the settings that tell them apart beside
 * it, e.g. `mock-scripted (scriptsSha256=47445520)`: enough to match a row to its target, short enough to read.
 */
function targetNames(groups: readonly HeadlineGroup[]): string[] {
  const configsByName = new Map<string, Map<string, HeadlineGroup['target']>>()
  for (const g of groups) {
    const targets = configsByName.get(g.target.name) ?? new Map<string, HeadlineGroup['target']>()
    targets.set(canonicalJson(g.target), g.target)
    configsByName.set(g.target.name, targets)
  }
  return groups.map((g) => {
    const namesakes = [...(configsByName.get(g.target.name)?.values() ?? [])]
    if (namesakes.length <= 1) return g.target.name
    const keys = [...new Set(namesakes.flatMap((t) => Object.keys(t.config)))].filter(
      (key) => new Set(namesakes.map((t) => canonicalJson(t.config[key] ?? null))).size > 1,
    )
    const parts = keys.map((key) => `${key}=${settingText(g.target.config[key])}`)
    return parts.length > 0
      ? `${g.target.name} (${parts.join(', ')})`
      : `${g.target.name} ${clip(canonicalJson(g.target), 60)}`
  })
}

function settingText(value: unknown): string {
  if (value === undefined) return '(unset)'
  // A digest is told apart by its first characters, as git shows a commit.
  if (typeof value === 'string') return /^[0-9a-f]{16,}$/.test(value) ? value.slice(0, 8) : clip(value, 24)
  return clip(canonicalJson(value), 24)
}

/** `humaneval · oracle: 98.0% pass rate (95% CI 89.5–99.6%) over 50 tasks`, the console's headline line. */
export function headlineLineText(label: string | null, figure: FigureText, level: string): string {
  const ci = figure.ci === '—' ? '' : ` (${level} CI ${figure.ci})`
  return `${label === null ? '' : `${label}: `}${figure.rate} pass rate${ci} over ${plural(figure.tasks, 'task')}`
}
