import * as z from 'zod'

/*
 * The view's index of a runs folder as it is cached on disk (`<runsDir>/.agentevalops/view-index.json`): a file
 * anyone with the folder could have written, so it is read with this schema and ignored whole when it does not
 * match. The shape is the view's IndexedRun (src/view/catalog/indexed-run.ts), which is checked against it.
 */

const Interval = z.object({ lower: z.number(), upper: z.number() })
const Verdict = z.enum(['GO', 'NO_GO', 'INCONCLUSIVE', 'INSUFFICIENT_EVIDENCE'])

const GroupFigure = z.object({
  benchmark: z.string(),
  target: z.string(),
  rate: z.number().nullable(),
  ci: Interval.nullable(),
  method: z.enum(['wilson', 't']),
  tasks: z.number().int().nonnegative(),
  trials: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
})

const ViewRunEntry = z.object({
  run: z.string(),
  runId: z.string(),
  state: z.enum(['valid', 'invalid', 'live']),
  problems: z.array(z.string()),
  status: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  benchmarks: z.array(z.string()),
  targets: z.array(z.string()),
  gitSha: z.string().nullable(),
  gitDirty: z.boolean().nullable(),
  labels: z.record(z.string(), z.string()),
  trials: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
  headline: GroupFigure.nullable(),
  groups: z.array(GroupFigure),
  costUsd: z.number().nullable(),
  verdict: z.object({ baseline: z.string(), verdict: Verdict }).nullable(),
})

export const ViewIndexedRun = z.object({
  entry: ViewRunEntry,
  tasks: z.array(
    z.object({
      benchmark: z.string(),
      taskId: z.string(),
      trials: z.number().int().nonnegative(),
      passed: z.number().int().nonnegative(),
    }),
  ),
  targetsByBenchmark: z.record(z.string(), z.array(z.string())),
})
export type ViewIndexedRun = z.infer<typeof ViewIndexedRun>

export const VIEW_INDEX_VERSION = 1

export const ViewIndexFile = z.object({
  version: z.literal(VIEW_INDEX_VERSION),
  runs: z.array(
    z.object({
      folder: z.string(),
      /** What the folder's manifest.json was when the row was read (see the catalog's manifestStamp). */
      stamp: z.string(),
      run: ViewIndexedRun,
    }),
  ),
})
export type ViewIndexFile = z.infer<typeof ViewIndexFile>
