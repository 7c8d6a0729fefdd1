import { describe, expect, it } from 'vitest'
import type { TestCase, TestModule, Vitest } from 'vitest/node'
import { annotationsWanted, progressEnabled } from '../../plugin/vite-plugin.ts'
import {
  ProgressReporter,
  elapsed,
  formatProgress,
  type ProgressState,
} from '../../reporters/progress-reporter.ts'
import { META_KEY, TRIAL_CASE_META_KEY, type TrialRecord } from '../../src/core/index.ts'
import { scoredTrial, type TrialSpec } from '../support/trials.ts'

const BASE: ProgressState = {
  done: 120,
  total: 500,
  totalGrows: false,
  passed: 76,
  infraFailures: 0,
  costUsd: 0.42,
  elapsedMs: 72_000,
}

describe('formatProgress', () => {
  it('says trials done of the total, the pass rate so far, the cost and the time', () => {
    expect(formatProgress(BASE)).toBe('agentevalops: 120/500 trials · pass 63.3% so far · $0.4200 · 1m12s')
  })

  it('names infra failures only when there are some', () => {
    expect(formatProgress({ ...BASE, infraFailures: 1 })).toBe(
      'agentevalops: 120/500 trials · pass 63.3% so far · 1 infra failure · $0.4200 · 1m12s',
    )
    expect(formatProgress({ ...BASE, infraFailures: 3 })).toContain('· 3 infra failures ·')
  })

  it('marks a total that will still grow, and leaves out one that is not known', () => {
    expect(formatProgress({ ...BASE, totalGrows: true })).toMatch(/^agentevalops: 120\/500\+ trials · /)
    expect(formatProgress({ ...BASE, total: null })).toMatch(/^agentevalops: 120 trials · /)
    expect(formatProgress({ ...BASE, total: null, done: 1, passed: 1 })).toMatch(
      /^agentevalops: 1 trial · pass 100\.0% so far/,
    )
  })

  it('shows a dash, not NaN, before any trial is done', () => {
    expect(formatProgress({ ...BASE, done: 0, passed: 0 })).toContain('pass — so far')
  })
})

describe('elapsed', () => {
  it.each([
    [0, '0s'],
    [999, '0s'],
    [42_500, '42s'],
    [60_000, '1m00s'],
    [72_000, '1m12s'],
    [3_599_000, '59m59s'],
    [3_600_000 + 5 * 60_000 + 30_000, '1h05m'],
    [-5, '0s'],
  ])('%i ms → %s', (ms, text) => {
    expect(elapsed(ms)).toBe(text)
  })
})

describe('progressEnabled', () => {
  it('is on unless the plugin option or AGENTEVALOPS_PROGRESS turns it off', () => {
    expect(progressEnabled(undefined, {})).toBe(true)
    expect(progressEnabled(true, {})).toBe(true)
    expect(progressEnabled(false, {})).toBe(false)
    for (const off of ['0', 'false', 'OFF', ' 0 ']) {
      expect(progressEnabled(undefined, { AGENTEVALOPS_PROGRESS: off }), off).toBe(false)
    }
    expect(progressEnabled(undefined, { AGENTEVALOPS_PROGRESS: '1' })).toBe(true)
    expect(progressEnabled(false, { AGENTEVALOPS_PROGRESS: '1' })).toBe(false)
  })
})

describe('annotationsWanted', () => {
  const entries = (...names: string[]) => names.map((name) => [name, {}])

  it('is off when every reporter ignores annotations', () => {
    expect(annotationsWanted(entries('default'), false, {})).toBe(false)
    expect(annotationsWanted(entries('default', 'github-actions', 'json', 'dot'), false, {})).toBe(false)
    expect(annotationsWanted([], false, {})).toBe(false)
  })

  it('is on when a reporter keeps or shows them: junit, blob, verbose, a file of its own, an unknown instance', () => {
    for (const name of ['junit', 'blob', 'verbose', 'tap', 'html', './my-reporter.ts']) {
      expect(annotationsWanted(entries('default', name), false, {}), name).toBe(true)
    }
    expect(annotationsWanted([...entries('default'), { onTestCaseAnnotate() {} }], false, {})).toBe(true)
  })

  it("leaves out agentevalops's own reporter instances, and is on in the UI", () => {
    const ours = { ours: true }
    expect(annotationsWanted([...entries('default'), ours], false, {}, (r) => r === ours)).toBe(false)
    expect(annotationsWanted(entries('default'), true, {})).toBe(true)
  })

  it('follows AGENTEVALOPS_ANNOTATE when set', () => {
    expect(annotationsWanted(entries('default'), false, { AGENTEVALOPS_ANNOTATE: '1' })).toBe(true)
    expect(annotationsWanted(entries('junit'), true, { AGENTEVALOPS_ANNOTATE: '0' })).toBe(false)
  })
})

// ---------------------------------------------------------------------------------------------------------------
// The reporter, driven with the few fields of Vitest's TestModule and TestCase it reads.

const PROJECT = 'evals'

interface FakeCase {
  id: string
  mode?: 'run' | 'skip' | 'todo' | 'only'
  trialCase?: boolean
  record?: TrialRecord
  project?: string
}

function testCase(c: FakeCase): TestCase {
  return {
    id: c.id,
    project: { name: c.project ?? PROJECT },
    options: { mode: c.mode ?? 'run' },
    meta: () => ({
      ...(c.trialCase === false ? {} : { [TRIAL_CASE_META_KEY]: true }),
      ...(c.record ? { [META_KEY]: c.record } : {}),
    }),
  } as unknown as TestCase
}

function testModule(moduleId: string, cases: readonly FakeCase[], project = PROJECT): TestModule {
  return {
    moduleId,
    project: { name: project },
    children: { allTests: () => cases.map(testCase) },
  } as unknown as TestModule
}

function trial(n: number, spec: Partial<TrialSpec> = {}): TrialRecord {
  return scoredTrial({ taskId: `task-${n}`, passed: true, costUsd: 0.01, ...spec })
}

/** A reporter on a hand-driven clock, with its lines collected. */
function harness(intervalMs = 2000) {
  let clock = 1_000_000
  const lines: string[] = []
  const reporter = new ProgressReporter({
    project: PROJECT,
    intervalMs,
    write: (line) => void lines.push(line),
    now: () => clock,
  })
  reporter.onTestRunStart()
  return {
    reporter,
    lines,
    advance: (ms: number) => void (clock += ms),
    /** Collects one module of `n` trial cases named `<prefix>-<i>`. */
    collect(moduleId: string, n: number, extra: FakeCase[] = []) {
      const cases = [...Array.from({ length: n }, (_, i): FakeCase => ({ id: `${moduleId}-${i}` })), ...extra]
      reporter.onTestModuleQueued(testModule(moduleId, cases))
      reporter.onTestModuleCollected(testModule(moduleId, cases))
    },
    finish(id: string, record: TrialRecord | undefined, project = PROJECT) {
      reporter.onTestCaseResult(testCase({ id, record, project }))
    },
  }
}

describe('ProgressReporter', () => {
  it('prints on each tenth of the trials, even within the interval', () => {
    const h = harness(60_000)
    h.collect('a.eval.ts', 20)
    for (let i = 0; i < 20; i++) {
      h.advance(100)
      h.finish(`a.eval.ts-${i}`, trial(i, { passed: i % 2 === 0 }))
    }
    expect(h.lines).toHaveLength(10)
    expect(h.lines[0]).toBe('agentevalops: 2/20 trials · pass 50.0% so far · $0.0200 · 0s')
    expect(h.lines.at(-1)).toBe('agentevalops: 20/20 trials · pass 50.0% so far · $0.2000 · 2s')
  })

  it('prints at most once per interval between tenths', () => {
    const h = harness(2000)
    // 1000 trials: a tenth is 100 of them, which this test never reaches.
    h.collect('big.eval.ts', 1000)
    for (let i = 0; i < 40; i++) {
      h.advance(500)
      h.finish(`big.eval.ts-${i}`, trial(i))
    }
    expect(h.lines.map((l) => /^agentevalops: (\d+)\//.exec(l)?.[1])).toEqual([
      '4',
      '8',
      '12',
      '16',
      '20',
      '24',
      '28',
      '32',
      '36',
      '40',
    ])
  })

  it('prints nothing for a run without eval trials', () => {
    const h = harness(0)
    h.collect('unit.test.ts', 0, [{ id: 'plain', trialCase: false }])
    h.reporter.onTestModuleCollected(testModule('other.eval.ts', [{ id: 'x' }], 'unit'))
    h.advance(10_000)
    // A gate case (no record), and a case of another project that happens to carry one.
    h.finish('gate', undefined)
    h.finish('x', trial(0), 'unit')
    expect(h.lines).toEqual([])
  })

  it('counts only the trial cases that will run in the total', () => {
    const h = harness(60_000)
    h.collect('a.eval.ts', 4, [
      { id: 'skipped', mode: 'skip' },
      { id: 'todo', mode: 'todo' },
      { id: 'gate: pass rate ≥ 0.9', trialCase: false },
    ])
    for (let i = 0; i < 4; i++) h.finish(`a.eval.ts-${i}`, trial(i))
    expect(h.lines.at(-1)).toMatch(/^agentevalops: 4\/4 trials · pass 100\.0% so far/)
  })

  it('counts a case reported twice once, and leaves out trials an interrupt cut short', () => {
    const h = harness(60_000)
    h.collect('a.eval.ts', 10)
    h.finish('a.eval.ts-0', trial(0))
    h.finish('a.eval.ts-0', trial(0))
    h.finish('a.eval.ts-1', trial(1, { outcome: 'interrupted', passed: false }))
    h.advance(60_000)
    h.finish('a.eval.ts-2', trial(2, { passed: false }))
    expect(h.lines).toEqual([
      'agentevalops: 1/10 trials · pass 100.0% so far · $0.0100 · 0s',
      'agentevalops: 2/10 trials · pass 50.0% so far · $0.0200 · 1m00s',
    ])
  })

  it('names infra failures, and counts what this run spent: not the agent of a reused trial', () => {
    const h = harness(0)
    h.collect('a.eval.ts', 100)
    const judged = trial(0, { costUsd: 0.5 })
    judged.scores = judged.scores.map((s) => ({ ...s, costUsd: 0.25 }))
    h.finish('a.eval.ts-0', judged)
    h.finish('a.eval.ts-1', trial(1, { outcome: 'infra_failure', passed: false, costUsd: 0 }))
    const rescored = { ...judged, reusedFrom: { runId: 'old', mode: 'rescored' as const } }
    h.finish('a.eval.ts-2', rescored)
    const reused = { ...judged, reusedFrom: { runId: 'old', mode: 'record' as const } }
    h.finish('a.eval.ts-3', reused)
    const evaluatorCost = judged.scores.length * 0.25
    expect(evaluatorCost).toBeGreaterThan(0)
    const lines = h.lines.map((l) => l.replace(/ · \d+s$/, ''))
    expect(lines).toEqual([
      `agentevalops: 1/100 trials · pass 100.0% so far · $${(0.5 + evaluatorCost).toFixed(4)}`,
      `agentevalops: 2/100 trials · pass 50.0% so far · 1 infra failure · $${(0.5 + evaluatorCost).toFixed(4)}`,
      `agentevalops: 3/100 trials · pass 66.7% so far · 1 infra failure · $${(0.5 + 2 * evaluatorCost).toFixed(4)}`,
      `agentevalops: 4/100 trials · pass 75.0% so far · 1 infra failure · $${(0.5 + 2 * evaluatorCost).toFixed(4)}`,
    ])
  })

  it('marks the total as growing while an eval file is queued but not collected, and waits with the tenths', () => {
    const h = harness(60_000)
    h.reporter.onTestModuleQueued(testModule('b.eval.ts', []))
    h.collect('a.eval.ts', 4)
    h.finish('a.eval.ts-0', trial(0))
    h.finish('a.eval.ts-1', trial(1))
    // Half of the trials known so far, but b's are not counted yet: no tenth is announced.
    expect(h.lines).toEqual([])
    h.advance(60_000)
    h.finish('a.eval.ts-2', trial(2))
    expect(h.lines).toEqual(['agentevalops: 3/4+ trials · pass 100.0% so far · $0.0300 · 1m00s'])
    // A file that ends without being collected (it failed to load) stops holding the total open.
    h.reporter.onTestModuleEnd(testModule('b.eval.ts', []))
    h.finish('a.eval.ts-3', trial(3))
    expect(h.lines.at(-1)).toBe('agentevalops: 4/4 trials · pass 100.0% so far · $0.0400 · 1m00s')
  })

  it('starts over on each run (watch mode reruns)', () => {
    const h = harness(60_000)
    h.collect('a.eval.ts', 1)
    h.finish('a.eval.ts-0', trial(0))
    h.reporter.onTestRunStart()
    h.collect('a.eval.ts', 1)
    h.finish('a.eval.ts-0', trial(0, { passed: false }))
    expect(h.lines).toEqual([
      'agentevalops: 1/1 trials · pass 100.0% so far · $0.0100 · 0s',
      'agentevalops: 1/1 trials · pass 0.0% so far · $0.0100 · 0s',
    ])
  })

  it("writes through Vitest's logger by default", () => {
    const logged: string[] = []
    const reporter = new ProgressReporter({ project: PROJECT })
    reporter.onInit({ logger: { log: (line: string) => void logged.push(line) } } as unknown as Vitest)
    reporter.onTestRunStart()
    reporter.onTestModuleCollected(testModule('a.eval.ts', [{ id: 'c' }]))
    reporter.onTestCaseResult(testCase({ id: 'c', record: trial(0) }))
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatch(/^agentevalops: 1\/1 trials · pass 100\.0% so far · \$0\.0100 · \d+s$/)
  })
  it('prints nothing while `vitest --merge-reports` replays the shards’ finished cases', () => {
    const logged: string[] = []
    const reporter = new ProgressReporter({ project: PROJECT })
    reporter.onInit({
      config: { mergeReports: '.vitest-reports' },
      logger: { log: (line: string) => void logged.push(line) },
    } as unknown as Vitest)
    reporter.onTestRunStart()
    reporter.onTestModuleCollected(testModule('a.eval.ts', [{ id: 'c' }]))
    reporter.onTestCaseResult(testCase({ id: 'c', record: trial(0) }))
    expect(logged).toEqual([])
  })
})
