import {
  StagedBenchmark,
  TrialRecord,
  type RunHeader,
  type RunnerInfo,
  type SummarySettings,
} from '../../core/index.ts'
import {
  DEFAULT_SUMMARY_SETTINGS,
  groupByTask,
  headlineOf,
  type SummarizedTrial,
} from '../../scorers/index.ts'
import type { LogLine } from '../../stores/index.ts'
import type { RunEntry } from '../api.ts'
import { headlineFigures } from '../catalog/run-entry-fields.ts'

/**
 * What the live view reads of a finished trial's record: the fields of the headline and the runs list, checked once
 * here (the log is a file the view did not write), never the whole record with its scores and result.
 */
const LiveRecord = TrialRecord.pick({
  benchmark: true,
  taskId: true,
  trial: true,
  outcome: true,
  passed: true,
  runner: true,
  usage: true,
})

/**
 * A live run's figures so far, from its header and the lines of its worker logs: trials finished and passed, cost,
 * benchmarks and targets, and the headline pass rate as the sealed bundle will compute it (mean over tasks of each
 * task's pass rate under the run's error policy, with its interval) over the trials finished so far. Per trial it
 * keeps the few fields that headline needs.
 */
export class LiveTally {
  private readonly trials = new Map<string, SummarizedTrial>()
  private readonly benchmarks = new Set<string>()
  private readonly targets = new Set<string>()
  /** One runner object per distinct runner: a run has a few, not one per trial. */
  private readonly runners = new Map<string, RunnerInfo>()
  private readonly settings: SummarySettings
  private passed = 0
  private costUsd = 0
  private entry: RunEntry | null = null
  /** Lines that were not what a worker log holds: skipped, counted. */
  damaged = 0

  constructor(private readonly header: RunHeader) {
    this.settings = header.statistics ?? DEFAULT_SUMMARY_SETTINGS
  }

  /** Trials finished so far (a retried trial once). */
  get finished(): number {
    return this.trials.size
  }

  /** Takes in a log's new lines; says whether the figures changed. */
  add(lines: readonly LogLine[]): boolean {
    let changed = false
    for (const line of lines) {
      if ('record' in line) changed = this.addRecord(line.record) || changed
      else if ('benchmark' in line) changed = this.addBenchmark(line.benchmark) || changed
    }
    if (changed) this.entry = null
    return changed
  }

  /** The run's row of the runs list, as it stands. */
  runEntry(): RunEntry {
    this.entry ??= this.makeEntry()
    return this.entry
  }

  private addRecord(value: unknown): boolean {
    const parsed = LiveRecord.safeParse(value)
    if (!parsed.success) {
      this.damaged++
      return false
    }
    const record = parsed.data
    const key = `${record.benchmark.id}\u0000${record.taskId}\u0000${record.trial}`
    // A retried case logs its trial again: the last record is the trial, as in the bundle.
    const before = this.trials.get(key)
    if (before) {
      if (before.passed) this.passed--
      this.costUsd -= before.usage.costUsd
    }
    const runner = this.runner(record.runner)
    this.trials.set(key, {
      benchmark: { id: record.benchmark.id },
      taskId: record.taskId,
      trial: record.trial,
      labels: NO_LABELS,
      passed: record.passed,
      outcome: record.outcome,
      result: null,
      scores: [],
      usage: record.usage,
      runner,
    })
    if (record.passed) this.passed++
    this.costUsd += record.usage.costUsd
    this.benchmarks.add(record.benchmark.id)
    this.targets.add(runner.name)
    return true
  }

  private addBenchmark(value: unknown): boolean {
    const parsed = StagedBenchmark.safeParse(value)
    if (!parsed.success) {
      this.damaged++
      return false
    }
    const known = this.benchmarks.size + this.targets.size
    this.benchmarks.add(parsed.data.benchmark.id)
    this.targets.add(parsed.data.runner.name)
    return this.benchmarks.size + this.targets.size !== known
  }

  private runner(info: RunnerInfo): RunnerInfo {
    const key = JSON.stringify(info)
    const known = this.runners.get(key)
    if (known) return known
    this.runners.set(key, info)
    return info
  }

  private makeEntry(): RunEntry {
    const trials = [...this.trials.values()]
    const headline = trials.length === 0 ? null : headlineOf(groupByTask(trials), this.settings)
    const benchmarks = [...this.benchmarks].sort()
    const targets = [...this.targets].sort()
    const figures = headline ? headlineFigures(headline, this.passed, benchmarks, targets) : null
    return {
      run: this.header.runId,
      runId: this.header.runId,
      state: 'live',
      problems: [],
      status: 'running',
      startedAt: this.header.startedAt,
      finishedAt: null,
      benchmarks,
      targets,
      gitSha: null,
      gitDirty: null,
      labels: this.header.labels,
      trials: trials.length,
      passed: this.passed,
      headline: figures?.headline ?? null,
      groups: figures?.groups ?? [],
      // Summed in arrival order: a live figure, not the bundle's.
      costUsd: trials.length === 0 ? null : this.costUsd,
      verdict: null,
    }
  }
}

const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({})
