import {
  newRunId,
  type RunMetadata,
  type RunSummary,
  type SummarySettings,
  type TraceEvent,
  type TrialRecord,
} from '../../core/index.ts'
import { writeBundle, type ExtraFile } from '../writer.ts'
import { carriedFiles } from './carried-files.ts'
import { gateVerdicts, type GateVerdict } from './gates.ts'
import { mergeProblems } from './input-checks.ts'
import { mergedMetadata } from './merged-metadata.ts'
import { readInputs, type MergeShard } from './read-inputs.ts'
import { mergeRefused } from './refusal.ts'
import { mergedReplayCommand } from './replay-line.ts'
import { eventsInOrder, unionTrials } from './union.ts'

export interface MergeInput {
  /** Bundle folders (a folder holding bundles is expanded by the caller). */
  dirs: readonly string[]
  /** The merged bundle lands in `runsDir/<runId>/`. */
  runsDir: string
  /** Default: a new UUIDv7. */
  runId?: string
}

export interface MergeResult {
  dir: string
  runId: string
  trials: number
  /** Inputs merged. */
  shards: number
  /** What the merged bundle does not carry over from its inputs, and why (a baseline comparison). */
  notes: string[]
  /**
   * The merged run against its benchmarks' pass-rate gates, which no shard judged: a caller fails (exit 1) when one
   * is not met, as the gate case of one process running the same work would.
   */
  gates: GateVerdict[]
}

/** The merged run, as the derivation draws its files from it. */
export interface MergedRun {
  metadata: RunMetadata
  trials: readonly TrialRecord[]
  summary: RunSummary
}

/**
 * What a merge recomputes with code outside src/bundles (statistics, report rendering, spans), handed in by the
 * edges that compose it (reporters/merge-bundles.ts): the bundle format does not depend on them.
 */
export interface MergeDerivation {
  /** The statistics over all trials, with the inputs' settings (null: none recorded, the scorer's defaults). */
  summarize(trials: readonly TrialRecord[], settings: SummarySettings | null): RunSummary
  /** The rendered reports by file name; report.md among them. */
  reports(run: MergedRun): Record<string, string>
  /** Files drawn from the merged events once they are written (spans.jsonl, report.html). */
  derivedFiles(run: MergedRun): (events: readonly TraceEvent[]) => Promise<readonly ExtraFile[]>
  /** The names of the files `derivedFiles` makes: the inputs' own copies are not carried over. */
  derivedFileNames: readonly string[]
}

/**
 * Merges the bundles of one run's shards (or whole runs of disjoint work of one config) into one `complete` bundle:
 * every input is validated and checked against the others first, and any reason they are not parts of one run is
 * refused (MERGE_REFUSED, each reason naming its input or trial) before anything is written. The statistics are
 * computed again over the union of the trials, never averaged from the inputs' summaries; the traces, recordings
 * and artifacts are carried over, the reports and spans drawn again.
 */
export async function mergeShards(input: MergeInput, derive: MergeDerivation): Promise<MergeResult> {
  const shards = inShardOrder(await readInputs(input.dirs))
  const problems = mergeProblems(shards)
  const carried = problems.length === 0 ? await carriedFiles(shards, derive.derivedFileNames) : undefined
  if (carried) problems.push(...carried.unknown)
  if (problems.length > 0 || !carried) throw mergeRefused(problems)

  const runId = input.runId ?? newRunId()
  const scored = unionTrials(shards)
  const trials = scored.map((t) => ({ ...t, runId }))
  const settings = shards.find((s) => s.bundle.scores.summary)?.bundle.scores.summary?.settings ?? null
  const summary = derive.summarize(trials, settings)
  const metadata = mergedMetadata(shards, scored, runId)
  const run: MergedRun = { metadata, trials, summary }
  const dir = await writeBundle({
    runsDir: input.runsDir,
    metadata,
    trials,
    summary,
    traceEvents: eventsInOrder(shards, scored, runId),
    reports: derive.reports(run),
    replayCommand: mergedReplayCommand(shards.map((s) => s.bundle.replayCommand)),
    extraFiles: carried.files,
    derivedFiles: derive.derivedFiles(run),
  })
  return {
    dir,
    runId,
    trials: trials.length,
    shards: shards.length,
    notes: notesOf(shards),
    gates: gateVerdicts(metadata.gates ?? [], trials),
  }
}

/** Shards by index; whole runs as given. */
function inShardOrder(shards: readonly MergeShard[]): MergeShard[] {
  return [...shards].sort(
    (a, b) => (a.bundle.metadata.shard?.index ?? 0) - (b.bundle.metadata.shard?.index ?? 0),
  )
}

function notesOf(shards: readonly MergeShard[]): string[] {
  const compared = shards.filter((s) => s.bundle.scores.summary?.comparison)
  if (compared.length === 0) return []
  const baselines = [...new Set(compared.map((s) => s.bundle.scores.summary!.comparison!.baseline.runId))]
  return [
    `the inputs' comparisons with baseline ${baselines.join(', ')} are not carried over (each covered only its ` +
      `own trials): compare the merged bundle with agentevalops compare <baseline> <merged bundle>`,
  ]
}
