import { existsSync } from 'node:fs'
import { appendFile, mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { derivedRunFiles } from '../../../reporters/derived-files.ts'
import { GrowingFiles } from '../../../reporters/growing-files.ts'
import { runTargets, writeBundle } from '../../bundles/index.ts'
import {
  BUNDLE_FORMAT_VERSION,
  checksumOf,
  sdkVersion,
  type MonitorRunInfo,
  type RunMetadata,
  type TraceStore,
  type TrialRecord,
} from '../../core/index.ts'
import type { ScoredTrace, WindowBundleWriter } from '../../monitor/index.ts'
import { renderMarkdownReport } from '../../reports/index.ts'
import { DEFAULT_SUMMARY_SETTINGS, summarizeTrials } from '../../scorers/index.ts'
import { JsonlTraceStore } from '../../stores/index.ts'

export interface MonitorBundleOptions {
  runsDir: string
  /** The scheduler's run id (`--run-id`): the bundle's, unless a bundle of it exists (a rerun: `-r2`, `-r3`…). */
  runId: string
  /** The command that reruns the window, for replay_command.txt. */
  replayCommand: string
  startedAt: Date
  /** The evaluators' fingerprint: windows scored alike share a configHash. */
  evaluatorsKey: string
  warn: (line: string) => void
}

/**
 * A window's bundle (status `monitor`): each scored trace's events go to a trace file of its own as the scorer writes
 * them (the trace store handed to the scorer), only its small record stays in memory, and the end writes the bundle
 * through the one bundle writer — the same report.md, report.html and spans.jsonl as an eval run's.
 */
export function monitorBundleWriter(
  o: MonitorBundleOptions,
): WindowBundleWriter & { runId: string; traceStore: TraceStore } {
  const runId = freeRunId(o.runsDir, o.runId)
  // Beside the bundles, a dot folder (skipped by merge and prune), removed once the bundle is written.
  const spill = join(o.runsDir, `.monitor-${runId}`)
  const traceStore = new JsonlTraceStore(join(spill, 'traces'), { commitDelayMs: 0 })
  const trials: TrialRecord[] = []
  // spans.jsonl's and report.html's per-trace parts grow as traces are scored, so the end never holds the window's
  // events: memory stays bounded by what is in flight, as in a run's reporter.
  const spansPath = join(spill, 'spans.jsonl')
  const rowsPath = join(spill, 'report-rows.jsonl')
  let growing: Promise<GrowingFiles> | undefined
  return {
    runId,
    traceStore,
    add: async (scored: ScoredTrace) => {
      growing ??= mkdir(spill, { recursive: true }).then(() => GrowingFiles.open(o.startedAt))
      const [spans, rows] = (await growing).parts
      await appendFile(spansPath, spans!.text(scored.record, scored.events))
      await appendFile(rowsPath, rows!.text(scored.record, scored.events))
      trials.push(scored.record)
    },
    discard: () => rm(spill, { recursive: true, force: true }),
    seal: async (info: MonitorRunInfo) => {
      const summary = summarizeTrials(trials, DEFAULT_SUMMARY_SETTINGS)
      const metadata = metadataOf(runId, info, trials, o)
      const streamed = (await (growing ??= GrowingFiles.open(o.startedAt))).sealed(
        [spansPath, rowsPath],
        trials,
        spill,
      )
      const derived = derivedRunFiles({ metadata, trials, summary, ...streamed })
      const dir = await writeBundle({
        runsDir: o.runsDir,
        metadata,
        trials,
        summary,
        traceFiles: trials.map((t) => join(traceStore.root, t.tracePath)),
        reports: { 'report.md': renderMarkdownReport({ metadata, trials, summary }) },
        replayCommand: o.replayCommand,
        extraFiles: await derived.derivedFiles([]),
      })
      const exportWarning = await derived.exportSpans()
      if (exportWarning !== null) o.warn(exportWarning)
      await rm(spill, { recursive: true, force: true })
      return dir
    },
  }
}

/** What windows of one monitor scored with the same evaluators share: their bundles' configHash. */
export function monitorConfigHash(
  monitorId: string,
  evaluatorsKey: string,
  levels: MonitorRunInfo['levels'],
): string {
  return checksumOf({ monitor: monitorId, evaluatorsKey, levels })
}

function freeRunId(runsDir: string, runId: string): string {
  const safe = runId.replace(/[^\w.-]/g, '_').replace(/^\.+/, '_')
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? safe : `${safe}-r${n}`
    if (!existsSync(join(runsDir, candidate))) return candidate
  }
}

function metadataOf(
  runId: string,
  info: MonitorRunInfo,
  trials: readonly TrialRecord[],
  { startedAt, evaluatorsKey }: MonitorBundleOptions,
): RunMetadata {
  const { targets, benchmarks } = runTargets(trials)
  const finishedAt = new Date()
  return {
    schemaVersion: BUNDLE_FORMAT_VERSION,
    runId,
    status: 'monitor',
    labels: { monitor: info.monitorName },
    target: targets[0] ?? null,
    targets,
    benchmark: benchmarks[0] ?? null,
    benchmarks,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationSec: Math.max(0, (finishedAt.getTime() - startedAt.getTime()) / 1000),
    sdkVersion: sdkVersion(),
    git: { sha: null, dirty: null },
    node: process.version,
    vitest: 'none',
    // Windows of one monitor with the same evaluators share it, so `compare` sees them as runs of one config.
    configHash: monitorConfigHash(info.monitorId, evaluatorsKey, info.levels),
    seed: null,
    shard: null,
    vitestProject: 'monitor',
    testNamePattern: null,
    trialCount: trials.length,
    resumedFrom: [],
    runGroup: null,
    monitor: info,
  }
}
