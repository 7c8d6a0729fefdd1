/*
 * What the report page is drawn from: the JSON in its `data` block (PageData: the run, from its metadata and
 * summary, made as the run ends) and its rows blocks (one TrialData per trial, each made as its trial is folded). Figures arrive formatted (by ../format.ts, so
 * the page shows what report.md shows) next to their raw values, which the page sorts by; the page's script does
 * no arithmetic on statistics.
 */

export type CellValue = string | number | null

export interface Column {
  id: string
  label: string
  numeric: boolean
  /** The column whose cell opens the row's task. */
  opensTask?: boolean
}

export interface TableRow {
  /** Stable within the table: the task key, category name… (the row's `data-key`). */
  key: string
  /** Raw values, one per column, to sort by; null sorts last. */
  v: CellValue[]
  /** Display texts, one per column: what the cells show and the filter searches. */
  t: string[]
  /** Index into PageData.tasks of the task the row opens. */
  task?: number
}

export interface TableData {
  id: string
  /** What one row is, for the row count: "task", "category"… */
  noun: string
  /** And several: "tasks", "categories"… */
  nouns: string
  columns: Column[]
  rows: TableRow[]
}

export interface TaskLink {
  label: string
  task: number | null
}

export interface Bar {
  label: string
  value: number
  text: string
}

export interface Chart {
  id: string
  title: string
  bars: Bar[]
}

export interface HeadlineData {
  /** Whether the pooled figure (rate, ci, method, tasks, trials, other) describes one target and is shown. */
  pooled: boolean
  /** What the pooled figure pools, when the run has several benchmarks of one target. */
  scope: string | null
  /** Why there is no pooled figure. */
  note: string | null
  /** One row per benchmark × target, when the run mixes them. */
  groups: TableData | null
  rate: string
  ci: string
  level: string
  method: string
  policy: string
  tasks: number
  trials: number
  /** The same figure under the other error policy, as a sentence. */
  other: string
  passed: number
  n: number
  /** The first of them (the tasks table has all); `neverPassedCount` says how many there are. */
  neverPassed: TaskLink[]
  neverPassedCount: number
  /** null when every task ran once: flakiness then means nothing. */
  flakyCount: number | null
  settings: string
}

export interface ComparisonData {
  verdict: string
  reason: string
  baseline: string
  facts: [string, string][]
  /** The overall pass rate's change, for the callout. */
  delta: string
  deltaCi: string
  pValue: string
  test: string
  metrics: TableData
  /** Tasks that always passed in the baseline and never pass now. */
  broken: TaskLink[]
  regressed: TaskLink[]
  improved: TaskLink[]
}

/** A task of the summary. The page finds its trials by `key` (TrialData.task) as it reads the rows. */
export interface TaskInfo {
  key: string
  benchmark: string
  taskId: string
  line: string
}

/*
 * Trials make up most of a large report, so what is empty is left out rather than written as null or []: the page
 * reads a missing field as empty.
 */

export interface FindingData {
  type: string
  message: string
  citations?: number[]
}

export interface ScoreData {
  evaluator: string
  kind: string
  score: string
  status: 'pass' | 'FAIL' | 'error'
  explanation: string
  error?: string
  /** What the evaluator threw, as a stack trace: `TypeError: message` and its user frames. */
  thrown?: string
  citations?: number[]
  findings?: FindingData[]
}

export interface VerdictData {
  checker: string
  verdict: string
  findings?: FindingData[]
}

export interface PhaseData {
  name: string
  text: string
}

/**
 * [step, ms since the trial started, index into PageData.kinds (or the kind itself, for one not in that fixed
 * list), payload] and, when the event used tokens or money, the usage as text.
 */
export type EventData =
  [number, number, number | string, unknown] | [number, number, number | string, unknown, string]

/** One row of a rows block: a trial, made from its record and its events alone. */
export interface TrialData {
  /** The key of its task (benchmark/task), as TaskInfo.key and the tables' row keys. */
  task: string
  trial: number
  outcome: string
  passed: boolean
  line: string
  answer: string | null
  error?: string
  /** What the runner threw, as a stack trace: `TypeError: message` and its user frames. */
  thrown?: string
  warnings?: string[]
  scores: ScoreData[]
  verdicts?: VerdictData[]
  /** Only in live records (not in bundles read from disk). */
  phases?: PhaseData[]
  events: EventData[]
}

export interface PageData {
  title: string
  run: [string, string][]
  caveat: string | null
  headline: HeadlineData
  comparison: ComparisonData | null
  tables: {
    benchmarks: TableData
    categories: TableData | null
    evaluators: TableData | null
    outcomes: TableData
    usage: TableData
    flaky: TableData | null
    tasks: TableData
  }
  costPerSolved: string
  charts: Chart[]
  /** In the summary's order: the tables' and links' `task` indices point here. */
  tasks: TaskInfo[]
  /** The event kinds EventData refers to by index: the same fixed list in every report of this version. */
  kinds: string[]
  /** Where the page sits when a server shows it (agentevalops view): absent in a bundle's report.html. */
  links?: ReportLinks
}

export interface ReportLinks {
  /** The runs list: the header links back to it ("← all runs"). */
  home: string
  /** This run's own page. */
  run: string
}
