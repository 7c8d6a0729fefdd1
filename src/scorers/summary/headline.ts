import {
  canonicalJson,
  heldColumns,
  type NumberColumn,
  type NumberColumns,
  type Headline,
  type HeadlineFigure,
  type HeadlineGroup,
  type RunnerInfo,
  type SummarySettings,
} from '../../core/index.ts'
import { mean } from '../stats/index.ts'
import { passRateInterval } from './estimate.ts'
import { reduceTrials } from './reduce.ts'
import { compareText, isInfraFailure, type SummarizedTrial, type TaskGroup } from './task-groups.ts'

/**
 * The pass rate a reader quotes, under both error policies, and the tasks an average hides: those that never
 * passed and those that passed only sometimes. Each benchmark × target gets its own figure; the pooled one is
 * flagged as meaningful only when one target ran, since a rate over different agents describes none of them.
 */
export function headlineOf(groups: readonly TaskGroup[], settings: SummarySettings): Headline {
  const fold = new HeadlineFold(settings)
  for (const group of groups) fold.addTask(group)
  return fold.headline()
}

/**
 * headlineOf a task at a time, tasks in bundle order: per task it keeps its reduced pass value under each policy
 * (pooled and in its benchmark × target), and the key of a task that never passed or was flaky.
 */
export class HeadlineFold {
  private readonly pooled: PolicyFigures
  private readonly neverPassed: string[] = []
  private readonly flaky: string[] = []
  private readonly populations = new Map<string, Population>()
  /** canonicalJson per runner object: the trials of a run share a few. */
  private readonly targetKeys = new WeakMap<RunnerInfo, string>()

  constructor(
    private readonly settings: SummarySettings,
    private readonly columns: NumberColumns = heldColumns,
  ) {
    this.pooled = new PolicyFigures(settings, columns)
  }

  addTask(group: TaskGroup): void {
    this.pooled.add(group.trials)
    if (neverPassed(group.trials)) this.neverPassed.push(group.key)
    if (flaky(group.trials)) this.flaky.push(group.key)
    // A target is a runner as metadata.json lists it (its whole RunnerInfo): the same name with other settings is
    // another agent, so the task's trials split by it.
    const byTarget = new Map<string, SummarizedTrial[]>()
    for (const trial of group.trials) {
      const key = this.targetKey(trial.runner)
      const split = byTarget.get(key)
      if (split) split.push(trial)
      else byTarget.set(key, [trial])
    }
    for (const [targetKey, trials] of byTarget) {
      const populationKey = `${group.benchmarkId}\u0000${targetKey}`
      let population = this.populations.get(populationKey)
      if (!population) {
        population = {
          benchmarkId: group.benchmarkId,
          target: trials[0]!.runner,
          targetKey,
          figures: new PolicyFigures(this.settings, this.columns),
          passed: 0,
          neverPassed: 0,
          flaky: 0,
        }
        this.populations.set(populationKey, population)
      }
      population.figures.add(trials)
      population.passed += trials.filter((t) => t.passed).length
      if (neverPassed(trials)) population.neverPassed++
      if (flaky(trials)) population.flaky++
    }
  }

  headline(): Headline {
    const pooled = this.pooled.figures()
    // In benchmark then target-name order.
    const populations = [...this.populations.values()].sort(
      (a, b) =>
        compareText(a.benchmarkId, b.benchmarkId) ||
        compareText(a.target.name, b.target.name) ||
        compareText(a.targetKey, b.targetKey),
    )
    return {
      primary: pooled.primary,
      infraAsFailure: pooled.infraAsFailure,
      infraExcluded: pooled.infraExcluded,
      neverPassed: this.neverPassed,
      flaky: this.flaky,
      groups: populations.map((p) => ({
        benchmarkId: p.benchmarkId,
        target: p.target,
        ...p.figures.figures(),
        passed: p.passed,
        neverPassed: p.neverPassed,
        flaky: p.flaky,
      })),
      pooled: new Set(populations.map((p) => p.targetKey)).size <= 1,
    }
  }

  private targetKey(target: RunnerInfo): string {
    let key = this.targetKeys.get(target)
    if (key === undefined) {
      key = canonicalJson(target)
      this.targetKeys.set(target, key)
    }
    return key
  }
}

/** The tasks of one benchmark × target. */
interface Population {
  benchmarkId: string
  target: RunnerInfo
  targetKey: string
  figures: PolicyFigures
  passed: number
  neverPassed: number
  flaky: number
}

function neverPassed(trials: readonly SummarizedTrial[]): boolean {
  return trials.every((t) => !t.passed)
}

function flaky(trials: readonly SummarizedTrial[]): boolean {
  return trials.some((t) => t.passed) && trials.some((t) => !t.passed)
}

/** A pass rate under both error policies, its tasks' values a task at a time. */
class PolicyFigures {
  private readonly infraAsFailure: FigureValues
  private readonly infraExcluded: FigureValues

  constructor(
    private readonly settings: SummarySettings,
    columns: NumberColumns,
  ) {
    this.infraAsFailure = new FigureValues(columns.column())
    this.infraExcluded = new FigureValues(columns.column())
  }

  add(trials: readonly SummarizedTrial[]): void {
    this.infraAsFailure.add(trials, this.settings)
    this.infraExcluded.add(
      trials.filter((t) => !isInfraFailure(t)),
      this.settings,
    )
  }

  figures(): Pick<HeadlineGroup, 'primary' | 'infraAsFailure' | 'infraExcluded'> {
    const infraAsFailure = this.infraAsFailure.figure(this.settings)
    const infraExcluded = this.infraExcluded.figure(this.settings)
    return {
      primary: this.settings.errorPolicy === 'exclude' ? infraExcluded : infraAsFailure,
      infraAsFailure,
      infraExcluded,
    }
  }
}

/** One pass rate over tasks: each task's reduced pass value, and the trials counted. */
class FigureValues {
  private trials = 0

  constructor(private readonly values: NumberColumn) {}

  /** A task's kept trials; a task with none kept adds nothing. */
  add(kept: readonly SummarizedTrial[], settings: SummarySettings): void {
    if (kept.length === 0) return
    this.trials += kept.length
    this.values.push(
      reduceTrials(
        kept.map((t) => (t.passed ? 1 : 0)),
        settings.reducer,
      ),
    )
  }

  figure(settings: SummarySettings): HeadlineFigure {
    const values = this.values.values()
    const { ci, method } = passRateInterval(values, settings.confidence)
    return { rate: mean(values), ci, method, tasks: values.length, trials: this.trials }
  }
}
