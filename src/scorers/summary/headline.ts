import {
  canonicalJson,
  type Headline,
  type HeadlineFigure,
  type HeadlineGroup,
  type RunnerInfo,
  type SummarySettings,
} from '../../core/index.ts'
import { mean } from '../stats/index.ts'
import { passRateInterval } from './estimate.ts'
import { reduceTrials } from './reduce.ts'
import { compareText, isInfraFailure, type TaskGroup } from './task-groups.ts'

/**
 * The pass rate a reader quotes, under both error policies, and the tasks an average hides: those that never
 * passed and those that passed only sometimes. Each benchmark × target gets its own figure; the pooled one is
 * flagged as meaningful only when one target ran, since a rate over different agents describes none of them.
 */
export function headlineOf(groups: readonly TaskGroup[], settings: SummarySettings): Headline {
  const pooled = figures(groups, settings)
  const populations = populationsOf(groups)
  return {
    primary: pooled.primary,
    infraAsFailure: pooled.infraAsFailure,
    infraExcluded: pooled.infraExcluded,
    neverPassed: groups.filter(neverPassed).map((g) => g.key),
    flaky: groups.filter(flaky).map((g) => g.key),
    groups: populations.map((p) => ({
      benchmarkId: p.benchmarkId,
      target: p.target,
      ...figures(p.tasks, settings),
      passed: p.tasks.reduce((sum, g) => sum + g.trials.filter((t) => t.passed).length, 0),
      neverPassed: p.tasks.filter(neverPassed).length,
      flaky: p.tasks.filter(flaky).length,
    })),
    pooled: new Set(populations.map((p) => targetKey(p.target))).size <= 1,
  }
}

interface Population {
  benchmarkId: string
  target: RunnerInfo
  tasks: TaskGroup[]
}

/**
 * The tasks of each benchmark × target, in benchmark then target-name order. A target is a runner as metadata.json
 * lists it (its whole RunnerInfo): the same name with other settings is another agent.
 */
function populationsOf(groups: readonly TaskGroup[]): Population[] {
  const byKey = new Map<string, Population>()
  for (const group of groups) {
    const byTarget = new Map<string, TaskGroup>()
    for (const trial of group.trials) {
      const key = targetKey(trial.runner)
      let split = byTarget.get(key)
      if (!split) {
        split = { ...group, trials: [] }
        byTarget.set(key, split)
        const populationKey = `${group.benchmarkId}\u0000${key}`
        let population = byKey.get(populationKey)
        if (!population) {
          population = { benchmarkId: group.benchmarkId, target: trial.runner, tasks: [] }
          byKey.set(populationKey, population)
        }
        population.tasks.push(split)
      }
      split.trials.push(trial)
    }
  }
  return [...byKey.values()].sort(
    (a, b) =>
      compareText(a.benchmarkId, b.benchmarkId) ||
      compareText(a.target.name, b.target.name) ||
      compareText(targetKey(a.target), targetKey(b.target)),
  )
}

function targetKey(target: RunnerInfo): string {
  return canonicalJson(target)
}

function neverPassed(group: TaskGroup): boolean {
  return group.trials.every((t) => !t.passed)
}

function flaky(group: TaskGroup): boolean {
  return group.trials.some((t) => t.passed) && group.trials.some((t) => !t.passed)
}

function figures(
  groups: readonly TaskGroup[],
  settings: SummarySettings,
): Pick<HeadlineGroup, 'primary' | 'infraAsFailure' | 'infraExcluded'> {
  const infraAsFailure = figure(groups, settings, false)
  const infraExcluded = figure(groups, settings, true)
  return {
    primary: settings.errorPolicy === 'exclude' ? infraExcluded : infraAsFailure,
    infraAsFailure,
    infraExcluded,
  }
}

function figure(
  groups: readonly TaskGroup[],
  settings: SummarySettings,
  excludeInfra: boolean,
): HeadlineFigure {
  let trials = 0
  const values: number[] = []
  for (const group of groups) {
    const kept = excludeInfra ? group.trials.filter((t) => !isInfraFailure(t)) : group.trials
    if (kept.length === 0) continue
    trials += kept.length
    values.push(
      reduceTrials(
        kept.map((t) => (t.passed ? 1 : 0)),
        settings.reducer,
      ),
    )
  }
  const { ci, method } = passRateInterval(values, settings.confidence)
  return { rate: mean(values), ci, method, tasks: values.length, trials }
}
