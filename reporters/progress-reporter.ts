import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node'
import * as z from 'zod'
import { META_KEY, TRIAL_CASE_META_KEY, TrialOutcome } from '../src/core/index.ts'
import { percent, usd } from '../src/reports/format.ts'

import type {} from './vitest-channel.ts'

export interface ProgressReporterOptions {
  /** Name of the Vitest project whose cases are eval trials. */
  project: string
  /** Least time between two lines, in ms (a line on each 10% of the trials is printed whatever it is). Default 2000. */
  intervalMs?: number
  /** Where lines go. Default: Vitest's logger, which prints above the TTY window renderer and plainly in CI logs. */
  write?: (line: string) => void
  /** The clock, in ms. Default Date.now. */
  now?: () => number
}

/** What one progress line says. */
export interface ProgressState {
  done: number
  /** Trial cases collected so far; null before any file's trials are collected. */
  total: number | null
  /** Some eval files are not collected yet, so `total` will still grow. */
  totalGrows: boolean
  passed: number
  /** Infra failures and trials that were never evaluated: the harness's fault, not the agent's. */
  infraFailures: number
  /** Spent by this run so far: agents and evaluators (an LLM judge), not what reused trials cost before. */
  costUsd: number
  elapsedMs: number
}

/** `agentevalops: 120/500 trials · pass 63.3% so far · $0.4200 · 1m12s` */
export function formatProgress(state: ProgressState): string {
  const total =
    state.total === null || state.total === 0 ? '' : `/${state.total}${state.totalGrows ? '+' : ''}`
  const parts = [
    `${state.done}${total} trial${state.done === 1 && total === '' ? '' : 's'}`,
    `pass ${percent(state.done === 0 ? null : state.passed / state.done)} so far`,
  ]
  if (state.infraFailures > 0)
    parts.push(`${state.infraFailures} infra failure${state.infraFailures === 1 ? '' : 's'}`)
  parts.push(usd(state.costUsd), elapsed(state.elapsedMs))
  return `agentevalops: ${parts.join(' · ')}`
}

/** `42s`, `1m12s`, `2h05m`. */
export function elapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`
  if (m > 0) return `${m}m${String(s).padStart(2, '0')}s`
  return `${s}s`
}

// Only what a progress line needs: the bundle reporter checks the whole record.
const ProgressRecord = z.object({
  outcome: TrialOutcome,
  passed: z.boolean(),
  usage: z.object({ costUsd: z.number().finite().nonnegative() }),
  scores: z.array(z.object({ costUsd: z.number().finite().nonnegative().default(0) })),
  reusedFrom: z
    .object({ mode: z.enum(['record', 'rescored']) })
    .nullable()
    .default(null),
})
type ProgressRecord = z.infer<typeof ProgressRecord>

interface RunProgress {
  startedAt: number
  lastLineAt: number
  /** Tenths of the total already announced. */
  milestone: number
  /** Eval modules queued but not collected yet. */
  uncollected: Set<string>
  collected: Set<string>
  total: number
  /** Cases already counted: Vitest reports the cases of a cancelled run again. */
  counted: Set<string>
  done: number
  passed: number
  infraFailures: number
  costUsd: number
}

/**
 * Live progress of the eval trials of one project: trials done of those collected, pass rate and cost so far,
 * time since the start. A line at most every `intervalMs` and on each tenth of the trials; nothing for a run
 * without trials. The end of the run is the bundle reporter's: its summary has the headline and the bundle path.
 */
export class ProgressReporter implements Reporter {
  private vitest: Vitest | undefined
  private run: RunProgress | undefined
  private readonly intervalMs: number
  private readonly now: () => number

  constructor(private readonly options: ProgressReporterOptions) {
    this.intervalMs = options.intervalMs ?? 2000
    this.now = options.now ?? Date.now
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  onTestRunStart(): void {
    // `vitest --merge-reports` replays finished cases at once: there is no progress to show, and the lines would
    // count the shards' files one by one.
    if (this.vitest?.config?.mergeReports) {
      this.run = undefined
      return
    }
    const now = this.now()
    this.run = {
      startedAt: now,
      lastLineAt: now,
      milestone: 0,
      uncollected: new Set(),
      collected: new Set(),
      total: 0,
      counted: new Set(),
      done: 0,
      passed: 0,
      infraFailures: 0,
      costUsd: 0,
    }
  }

  onTestModuleQueued(module: TestModule): void {
    if (this.run && module.project.name === this.options.project) this.run.uncollected.add(module.moduleId)
  }

  onTestModuleCollected(module: TestModule): void {
    const run = this.run
    if (!run || module.project.name !== this.options.project) return
    if (run.collected.has(module.moduleId)) return
    run.collected.add(module.moduleId)
    run.uncollected.delete(module.moduleId)
    for (const test of module.children.allTests()) {
      const { mode } = test.options
      // Cases left out by -t or .skip never run, so they are not part of this run's total.
      if (test.meta()[TRIAL_CASE_META_KEY] === true && mode !== 'skip' && mode !== 'todo') run.total++
    }
  }

  onTestModuleEnd(module: TestModule): void {
    // A file that failed to collect never reports its cases: the total stops waiting for it.
    this.run?.uncollected.delete(module.moduleId)
  }

  onTestCaseResult(testCase: TestCase): void {
    const run = this.run
    if (!run || testCase.project.name !== this.options.project || run.counted.has(testCase.id)) return
    const parsed = ProgressRecord.safeParse(testCase.meta()[META_KEY])
    // Gate cases carry no record; a trial cut short by an interrupt is not done and leaves the bundle too.
    if (!parsed.success || parsed.data.outcome === 'interrupted') return
    run.counted.add(testCase.id)
    count(run, parsed.data)
    if (this.due(run)) this.print(run)
  }

  /** On a new tenth of a known total, or when the interval has passed since the last line. */
  private due(run: RunProgress): boolean {
    if (run.total > 0 && run.uncollected.size === 0) {
      const milestone = Math.floor((Math.min(run.done, run.total) * 10) / run.total)
      if (milestone > run.milestone) {
        run.milestone = milestone
        return true
      }
    }
    return this.now() - run.lastLineAt >= this.intervalMs
  }

  private print(run: RunProgress): void {
    const now = this.now()
    run.lastLineAt = now
    const line = formatProgress({
      done: run.done,
      total: run.total === 0 ? null : run.total,
      totalGrows: run.uncollected.size > 0,
      passed: run.passed,
      infraFailures: run.infraFailures,
      costUsd: run.costUsd,
      elapsedMs: now - run.startedAt,
    })
    if (this.options.write) this.options.write(line)
    else this.vitest?.logger.log(line)
  }
}

function count(run: RunProgress, record: ProgressRecord): void {
  run.done++
  if (record.passed) run.passed++
  if (record.outcome === 'infra_failure' || record.outcome === 'not_evaluated') run.infraFailures++
  // A reused trial's agent ran (and was paid for) in an earlier run; a rescored one's evaluators ran again now.
  const agentCost = record.reusedFrom ? 0 : record.usage.costUsd
  const evaluatorCost =
    record.reusedFrom?.mode === 'record' ? 0 : record.scores.reduce((sum, s) => sum + s.costUsd, 0)
  run.costUsd += agentCost + evaluatorCost
}
