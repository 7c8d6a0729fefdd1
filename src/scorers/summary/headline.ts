import type { Headline, HeadlineFigure, SummarySettings } from '../../core/index.ts'
import { mean } from '../stats/index.ts'
import { passRateInterval } from './estimate.ts'
import { reduceTrials } from './reduce.ts'
import { isInfraFailure, type TaskGroup } from './task-groups.ts'

/**
 * The pass rate a reader quotes, under both error policies, and the tasks an average hides: those that never
 * passed and those that passed only sometimes.
 */
export function headlineOf(groups: readonly TaskGroup[], settings: SummarySettings): Headline {
  const infraAsFailure = figure(groups, settings, false)
  const infraExcluded = figure(groups, settings, true)
  return {
    primary: settings.errorPolicy === 'exclude' ? infraExcluded : infraAsFailure,
    infraAsFailure,
    infraExcluded,
    neverPassed: groups.filter((g) => g.trials.every((t) => !t.passed)).map((g) => g.key),
    flaky: groups
      .filter((g) => g.trials.some((t) => t.passed) && g.trials.some((t) => !t.passed))
      .map((g) => g.key),
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
