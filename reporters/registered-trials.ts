import { relative, sep } from 'node:path'
import type { TestCase, TestModule } from 'vitest/node'
import {
  GATE_META_KEY,
  PassRateGate,
  TRIAL_ID_META_KEY,
  TrialCaseId,
  type RegisteredTrials,
} from '../src/core/index.ts'

/**
 * The trials the run's eval cases registered (the trial cases of `project` that were to run: not those left out by
 * `-t` or `.skip`), by benchmark and task, sorted as the bundle sorts its trials.
 */
export function registeredTrials(modules: readonly TestModule[], project: string): RegisteredTrials[] {
  return trialsOf(modules, project, () => true)
}

/**
 * The registered trials whose cases never ended (no result: their worker died under them), and the files they are
 * in, relative to `root`. A case that ended, even failed without a record, is not among them.
 */
export function unendedTrials(
  modules: readonly TestModule[],
  project: string,
  root: string,
): { files: string[]; trials: RegisteredTrials[] } {
  const files = new Set<string>()
  const trials = trialsOf(modules, project, (test) => {
    if (test.result().state !== 'pending') return false
    files.add(relative(root, test.module.moduleId).split(sep).join('/'))
    return true
  })
  return { files: [...files].sort(), trials }
}

/**
 * The pass-rate gates of the run's benchmarks, from their gate cases' meta (skipped ones included: a shard skips its
 * gate, which the merge then judges), one per benchmark, sorted by benchmark.
 */
export function passRateGates(modules: readonly TestModule[], project: string): PassRateGate[] {
  const gates = new Map<string, PassRateGate>()
  for (const module of modules) {
    if (module.project.name !== project) continue
    for (const test of module.children.allTests()) {
      const gate = PassRateGate.safeParse(test.meta()[GATE_META_KEY])
      if (gate.success && !gates.has(gate.data.benchmark)) gates.set(gate.data.benchmark, gate.data)
    }
  }
  return [...gates.values()].sort((a, b) => cmp(a.benchmark, b.benchmark))
}

function trialsOf(
  modules: readonly TestModule[],
  project: string,
  include: (test: TestCase) => boolean,
): RegisteredTrials[] {
  const byTask = new Map<string, RegisteredTrials>()
  for (const module of modules) {
    if (module.project.name !== project) continue
    for (const test of module.children.allTests()) {
      const { mode } = test.options
      if (mode === 'skip' || mode === 'todo') continue
      const id = TrialCaseId.safeParse(test.meta()[TRIAL_ID_META_KEY])
      if (!id.success || !include(test)) continue
      const key = `${id.data.benchmark}\u0000${id.data.taskId}`
      const entry = byTask.get(key)
      if (entry) entry.trials.push(id.data.trial)
      else byTask.set(key, { benchmark: id.data.benchmark, taskId: id.data.taskId, trials: [id.data.trial] })
    }
  }
  return [...byTask.values()]
    .map((e) => ({ ...e, trials: [...new Set(e.trials)].sort((a, b) => a - b) }))
    .sort((a, b) => cmp(a.benchmark, b.benchmark) || cmp(a.taskId, b.taskId))
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
