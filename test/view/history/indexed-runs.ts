// A stand-in for the view server's readRunEntry (src/view/catalog), which these tests may not have: an IndexedRun
// from a sealed bundle's metadata.json and scores.json, read with their zod schemas. The integrator switches it.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { RunMetadata, ScoresFile, type HeadlineFigure } from '../../../src/core/index.ts'
import type { GroupFigure } from '../../../src/view/api.ts'
import type { IndexedRun } from '../../../src/view/catalog/indexed-run.ts'

export async function readIndexedRun(runsDir: string, name: string): Promise<IndexedRun> {
  const dir = join(runsDir, name)
  const metadata = RunMetadata.parse(JSON.parse(await readFile(join(dir, 'metadata.json'), 'utf8')))
  const { summary } = ScoresFile.parse(JSON.parse(await readFile(join(dir, 'scores.json'), 'utf8')))
  const figure = (benchmark: string, target: string, f: HeadlineFigure, passed: number): GroupFigure => ({
    benchmark,
    target,
    rate: f.rate,
    ci: f.ci,
    method: f.method,
    tasks: f.tasks,
    trials: f.trials,
    passed,
  })
  const groups = (summary.headline.groups ?? []).map((g) =>
    figure(g.benchmarkId, g.target.name, g.primary, g.passed),
  )
  const targetsByBenchmark: Record<string, string[]> = {}
  for (const g of groups) (targetsByBenchmark[g.benchmark] ??= []).push(g.target)
  const comparison = summary.comparison
  return {
    entry: {
      run: name,
      runId: metadata.runId,
      state: 'valid',
      problems: [],
      status: metadata.status,
      startedAt: metadata.startedAt,
      finishedAt: metadata.finishedAt,
      benchmarks: metadata.benchmarks.map((b) => b.id),
      targets: metadata.targets.map((t) => t.name),
      gitSha: metadata.git.sha,
      gitDirty: metadata.git.dirty,
      labels: metadata.labels,
      trials: summary.n,
      passed: summary.passed,
      headline: groups.length === 1 ? groups[0]! : null,
      groups,
      costUsd: summary.usage.costUsd,
      verdict: comparison ? { baseline: comparison.baseline.runId, verdict: comparison.verdict } : null,
    },
    tasks: summary.tasks.map((t) => ({
      benchmark: t.benchmarkId,
      taskId: t.taskId,
      trials: t.trials,
      passed: t.passed,
    })),
    targetsByBenchmark,
  }
}

/** Every bundle of the folder, in folder-name order (the functions under test must not depend on it). */
export async function readIndexedRuns(runsDir: string): Promise<IndexedRun[]> {
  const names = (await readdir(runsDir)).filter((n) => !n.startsWith('.')).sort()
  return Promise.all(names.map((name) => readIndexedRun(runsDir, name)))
}
