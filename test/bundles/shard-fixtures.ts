// Shard bundles written by writeBundle from the fixture records: parts of one run (the same config, dataset and
// SDK), each with a trial's artifact and its recordings, for the merge tests.
import { join } from 'node:path'
import { writeBundle } from '../../src/bundles/index.ts'
import type { RunMetadata, TrialRecord } from '../../src/core/index.ts'
import { DEFAULT_SUMMARY_SETTINGS, summarizeTrials } from '../../src/scorers/index.ts'
import { bundleInput, FIXTURE_BENCHMARK } from './fixtures.ts'

export interface ShardFixture {
  /** Default: `0190f5a0-0000-7000-8000-00000000000<index>`. */
  runId?: string
  /** null: a whole run (status complete, no shard). */
  shard: { index: number; count: number } | null
  tasks: readonly string[]
  /** Over the fixture's metadata, after status and shard. */
  metadata?: Partial<RunMetadata>
  /** Edits the records before they are written (their summary is computed after). */
  trials?: (trials: TrialRecord[]) => TrialRecord[]
}

export function shardRunId(index: number): string {
  return `0190f5a0-0000-7000-8000-${String(index).padStart(12, '0')}`
}

/** An artifact of the trial's own folder, as the artifact store keeps one. */
export function artifactPath(taskId: string, trial = 0): string {
  return `artifacts/${FIXTURE_BENCHMARK.id}/${taskId}.t${trial}/answer.txt`
}

/** One recorded exchange of the trial, as a recordings.jsonl line. */
export function recordingLine(taskId: string, trial = 0): string {
  return JSON.stringify({
    v: 1,
    benchmark: FIXTURE_BENCHMARK.id,
    taskId,
    trial,
    key: 'a'.repeat(64),
    ordinal: 0,
    request: { model: 'm', task: taskId },
    response: { content: [] },
    attempts: [],
    recordedAt: '2025-01-02T03:04:05.000Z',
  })
}

/** Writes the bundle into `runsDir` (its sources under `work`) and returns its folder. */
export async function writeShard(work: string, runsDir: string, fixture: ShardFixture): Promise<string> {
  const runId = fixture.runId ?? shardRunId(fixture.shard?.index ?? 0)
  const base = await bundleInput(join(work, `src-${runId}-${Math.random().toString(36).slice(2)}`), {
    runId,
    tasks: fixture.tasks,
  })
  const trials = fixture.trials ? fixture.trials([...base.trials]) : base.trials
  const metadata: RunMetadata = {
    ...base.metadata,
    status: fixture.shard ? 'partial-shard' : 'complete',
    shard: fixture.shard,
    trialCount: trials.length,
    registeredTrials: fixture.tasks.map((taskId) => ({
      benchmark: FIXTURE_BENCHMARK.id,
      taskId,
      trials: [0, 1],
    })),
    ...fixture.metadata,
  }
  return writeBundle({
    ...base,
    runsDir,
    metadata,
    trials,
    summary: summarizeTrials(trials, DEFAULT_SUMMARY_SETTINGS),
    replayCommand: fixture.shard
      ? `# from the Vitest root of the project\nnpx vitest run --project evals evals/a.eval.ts --shard=${fixture.shard.index}/${fixture.shard.count}\n`
      : '# from the Vitest root of the project\nnpx vitest run --project evals evals/a.eval.ts\n',
    // An empty shard (the partition gave it no task) has neither.
    extraFiles: fixture.tasks[0]
      ? [
          { path: artifactPath(fixture.tasks[0]), data: `${fixture.tasks[0]}\n` },
          { path: 'recordings.jsonl', data: fixture.tasks.map((t) => `${recordingLine(t)}\n`).join('') },
        ]
      : [],
  })
}
