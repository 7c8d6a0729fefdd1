import { existsSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { derivedRunFiles } from '../../../reporters/derived-files.ts'
import { invalidTraces, writeSortedParts } from '../../../reporters/fold-seal.ts'
import { GrowingFiles } from '../../../reporters/growing-files.ts'
import { FOLD_DIR, RunFold } from '../../../reporters/run-fold.ts'
import { SealTally } from '../../../reporters/seal-tally.ts'
import { sealBundle } from '../../bundles/index.ts'
import {
  BUNDLE_FORMAT_VERSION,
  checksumOf,
  sdkVersion,
  type MonitorRunInfo,
  type RunMetadata,
  type TraceStore,
} from '../../core/index.ts'
import type { ScoredTrace, WindowBundleWriter } from '../../monitor/index.ts'
import { renderMarkdownReport } from '../../reports/index.ts'
import { DEFAULT_SUMMARY_SETTINGS } from '../../scorers/index.ts'
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
 * A window's bundle (status `monitor`), written the way a run's reporter writes an eval run's: each scored trace is
 * folded as it arrives (its record spilled, its events and its spans.jsonl and report.html parts appended to the
 * fold's files) and its key and byte ranges to the fold's index, on disk; the end reads the records back once in
 * bundle order (scores.json, the statistics and the reports' figures, a record at a time), spilling the task table
 * and the statistics' number columns as it goes, and seals. So memory holds the traces in flight, never the
 * window's trace data, a key or a number per trace; only the summary's list of the traces that never passed grows
 * with the window (docs/performance.md, "Monitor windows").
 */
export function monitorBundleWriter(
  o: MonitorBundleOptions,
): WindowBundleWriter & { runId: string; traceStore: TraceStore; spillDir: string } {
  const runId = freeRunId(o.runsDir, o.runId)
  // Beside the bundles, a dot folder (skipped by merge and prune). The window spills its scores here too, and
  // streams them to the sinks after the seal: the bundle's parts are removed once it is written, the folder by the
  // command once the window is over.
  const spill = join(o.runsDir, `.monitor-${runId}`)
  const traceStore = new JsonlTraceStore(join(spill, 'traces'), { commitDelayMs: 0 })
  let opened: Promise<{ fold: RunFold; growing: GrowingFiles }> | undefined
  const open = () =>
    (opened ??= (async () => {
      const growing = await GrowingFiles.open(o.startedAt)
      return { fold: await RunFold.open(spill, runId, growing.parts), growing }
    })())
  const removeParts = async () => {
    await rm(traceStore.root, { recursive: true, force: true })
    await rm(join(spill, FOLD_DIR), { recursive: true, force: true })
  }
  return {
    runId,
    traceStore,
    spillDir: spill,
    add: async (scored: ScoredTrace) => {
      const { fold } = await open()
      await fold.add(scored.record, scored.events)
      // The trace file the scorer wrote is in the fold now: the window's disk use stays one copy of it.
      await rm(join(traceStore.root, scored.record.tracePath), { force: true })
    },
    discard: async () => {
      if (opened) await (await opened).fold.close()
      await removeParts()
    },
    seal: async (info: MonitorRunInfo) => {
      const { fold, growing } = await open()
      try {
        return await sealWindow(o, runId, info, fold, growing)
      } finally {
        await fold.close()
        await removeParts()
      }
    },
  }
}

async function sealWindow(
  o: MonitorBundleOptions,
  runId: string,
  info: MonitorRunInfo,
  fold: RunFold,
  growing: GrowingFiles,
): Promise<string> {
  const traceFindings = fold.index.traceFindings()
  if (traceFindings.length > 0) throw invalidTraces(traceFindings)
  // The window's task table (a row a trace) and the statistics' numbers: spilled beside the fold's files.
  const tally = new SealTally(runId, DEFAULT_SUMMARY_SETTINGS, { keepSlims: false, spillDir: fold.dir })
  const parts = await writeSortedParts(
    fold,
    fold.index.sorted(),
    growing.parts.map((p) => p.file),
    tally,
  )
  try {
    const summary = tally.summary()
    const metadata = metadataOf(runId, info, tally, o)
    const scores = await parts.finishScores(summary)
    const derived = derivedRunFiles({
      metadata,
      trials: [],
      summary,
      ...(await growing.sealed(parts.parts, tally.totals, fold.dir)),
    })
    const dir = await sealBundle({
      runsDir: o.runsDir,
      metadata,
      trials: tally.keys,
      traces: parts.traces,
      scores,
      reports: { 'report.md': renderMarkdownReport({ metadata, trials: tally.report, summary }) },
      replayCommand: o.replayCommand,
      extraFiles: await derived.derivedFiles([]),
    })
    const exportWarning = await derived.exportSpans(dir)
    if (exportWarning !== null) o.warn(exportWarning)
    return dir
  } catch (e) {
    await parts.abandon()
    throw e
  } finally {
    tally.close()
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
  tally: SealTally,
  { startedAt, evaluatorsKey }: MonitorBundleOptions,
): RunMetadata {
  const { targets, benchmarks } = tally
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
    trialCount: tally.count,
    resumedFrom: [],
    runGroup: null,
    monitor: info,
  }
}
