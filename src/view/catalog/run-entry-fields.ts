import type { Headline, HeadlineFigure, RunMetadata, RunSummary } from '../../core/index.ts'
import type { GroupFigure, RunEntry } from '../api.ts'
import type { IndexedRun, IndexedTask } from './indexed-run.ts'

/** What a valid bundle's small files say, as the view's index keeps it. */
export function indexedRunOf(
  folder: string,
  metadata: RunMetadata,
  scores: { trials: number; passed: number; summary: RunSummary | null },
): IndexedRun {
  const { summary } = scores
  const targets = unique(metadata.targets.map((t) => t.name))
  const benchmarks = unique(metadata.benchmarks.map((b) => b.id))
  const figures = summary ? headlineFigures(summary.headline, summary.passed, benchmarks, targets) : null
  const groups = figures?.groups ?? []
  const entry: RunEntry = {
    ...metadataFields(folder, metadata),
    state: 'valid',
    problems: [],
    trials: summary?.n ?? scores.trials,
    passed: summary?.passed ?? scores.passed,
    headline: figures?.headline ?? null,
    groups,
    costUsd: summary?.usage.costUsd ?? null,
    verdict: summary?.comparison
      ? { baseline: summary.comparison.baseline.runId, verdict: summary.comparison.verdict }
      : null,
  }
  const tasks: IndexedTask[] = (summary?.tasks ?? []).map((t) => ({
    benchmark: t.benchmarkId,
    taskId: t.taskId,
    trials: t.trials,
    passed: t.passed,
  }))
  return { entry, tasks, targetsByBenchmark: targetsByBenchmark(groups, benchmarks, targets) }
}

/**
 * A folder that is not a valid bundle: its problems, and of its facts only what a metadata.json that passed its
 * schema says (nothing at all otherwise). No figures and no tasks: they would rest on files that did not check out.
 */
export function invalidRunOf(folder: string, problems: string[], metadata?: RunMetadata): IndexedRun {
  const facts = metadata
    ? metadataFields(folder, metadata)
    : {
        run: folder,
        runId: folder,
        status: 'unknown',
        startedAt: null,
        finishedAt: null,
        benchmarks: [],
        targets: [],
        gitSha: null,
        gitDirty: null,
        labels: {},
      }
  const entry: RunEntry = {
    ...facts,
    state: 'invalid',
    problems,
    trials: 0,
    passed: 0,
    headline: null,
    groups: [],
    costUsd: null,
    verdict: null,
  }
  return { entry, tasks: [], targetsByBenchmark: {} }
}

type MetadataFields = Pick<
  RunEntry,
  | 'run'
  | 'runId'
  | 'status'
  | 'startedAt'
  | 'finishedAt'
  | 'benchmarks'
  | 'targets'
  | 'gitSha'
  | 'gitDirty'
  | 'labels'
>

function metadataFields(folder: string, metadata: RunMetadata): MetadataFields {
  return {
    run: folder,
    runId: metadata.runId,
    status: metadata.status,
    startedAt: metadata.startedAt,
    finishedAt: metadata.finishedAt,
    benchmarks: unique(metadata.benchmarks.map((b) => b.id)),
    targets: unique(metadata.targets.map((t) => t.name)),
    gitSha: metadata.git.sha,
    gitDirty: metadata.git.dirty,
    labels: { ...metadata.labels },
  }
}

function figure(benchmark: string, target: string, primary: HeadlineFigure, passed: number): GroupFigure {
  return {
    benchmark,
    target,
    rate: primary.rate,
    ci: primary.ci,
    method: primary.method,
    tasks: primary.tasks,
    trials: primary.trials,
    passed,
  }
}

/**
 * A headline's figures as the runs list shows them: one per benchmark × target (scores.json's headline groups; a
 * summary written before groups existed has only the pooled figure, which is then a group's only when the run had
 * one benchmark and one target), and the pooled one only when it describes one target (see Headline.pooled). A
 * sealed run and a live one (src/view/live, over the trials so far) both go through here, so a row keeps its
 * figures when its run ends.
 */
export function headlineFigures(
  headline: Headline,
  passed: number,
  benchmarks: readonly string[],
  targets: readonly string[],
): { headline: GroupFigure | null; groups: GroupFigure[] } {
  const groups = headline.groups
    ? headline.groups.map((g) => figure(g.benchmarkId, g.target.name, g.primary, g.passed))
    : benchmarks.length === 1 && targets.length === 1
      ? [figure(benchmarks[0]!, targets[0]!, headline.primary, passed)]
      : []
  const pooled = headline.pooled ?? targets.length <= 1
  return {
    headline: pooled ? figure(benchmarks.join(', '), targets[0] ?? '', headline.primary, passed) : null,
    groups,
  }
}

function targetsByBenchmark(
  groups: readonly GroupFigure[],
  benchmarks: readonly string[],
  targets: readonly string[],
): Record<string, string[]> {
  // A Map, not an object: benchmark ids come from the bundle, and `__proto__` is a valid one.
  const out = new Map<string, string[]>()
  if (groups.length > 0) {
    for (const g of groups) {
      const list = out.get(g.benchmark) ?? []
      if (!list.includes(g.target)) list.push(g.target)
      out.set(g.benchmark, list)
    }
  } else {
    for (const b of benchmarks) out.set(b, [...targets])
  }
  return Object.fromEntries(out)
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)]
}
