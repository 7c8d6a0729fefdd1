import { join } from 'node:path'
import { errorMessage, type FullTrace, type MonitorCounts, type MonitorRunInfo } from '../../core/index.ts'
import type {
  MonitorScoreBatch,
  MonitorTraceSource,
  MonitorWindow,
  ScoreAggregator,
  ScoredTrace,
  ScorePublisher,
  TraceScorer,
} from '../contract.ts'
import type { ScoredTraceLedger } from './ledger.ts'
import { sampledIn } from './sampling.ts'
import { openScoreSpill, type ScoreSpill } from './score-spill.ts'
import { writeUnpublished } from './unpublished.ts'

/** Traces scored at once when the caller names no number: judges are network-bound, deterministic scorers cheap. */
export const DEFAULT_MONITOR_CONCURRENCY = 4
/** Skip reasons logged one by one before they are only counted. */
const LOGGED_SKIPS = 10

/**
 * The window's bundle, grown as traces are scored and sealed at the end (status `monitor`). Implemented at the CLI,
 * which may use the bundle writer and the report renderers; the job only hands it what it scored.
 */
export interface WindowBundleWriter {
  /** Called once per scored trace, one call at a time. */
  add(scored: ScoredTrace): Promise<void>
  /** Writes the bundle; returns its folder. Nothing was added: not called. */
  seal(info: MonitorRunInfo): Promise<string>
  /** The run wrote no bundle (no trace scored): whatever add() spilled is removed. */
  discard(): Promise<void>
}

export interface MonitorWindowOptions {
  monitorName: string
  monitorId: string
  runId: string
  window: MonitorWindow
  levels: MonitorRunInfo['levels']
  source: MonitorTraceSource
  scorer: TraceScorer
  /**
   * Folds each score as it arrives; its result, given the traces skipped before scoring per evaluator identifier,
   * is the window's aggregates.
   */
  aggregator: ScoreAggregator
  /**
   * The window's staging folder (the bundle's, when there is one): its scores are spilled to `scores.jsonl` there
   * as traces are scored, and streamed from it to every sink; the file is removed when the window ends.
   */
  spillDir: string
  /** Every evaluator's identifier: a trace that could not be scored counts as skipped for each. */
  identifiers: readonly string[]
  /** 0..1; a trace is in the sample when its id's sha256 point is below it. */
  samplingRate: number
  /** Traces that ended less than this long before `now()` are still being written: left for a later run. */
  settleMs: number
  now?: () => Date
  maxTraces?: number | undefined
  maxCostUsd?: number | undefined
  concurrency?: number | undefined
  ledger?: ScoredTraceLedger | null | undefined
  /** The evaluators' fingerprint (ledger key), kept with an unpublished batch. */
  evaluatorsKey: string
  bundle?: WindowBundleWriter | null | undefined
  /** Empty with --no-publish. */
  publishers: readonly ScorePublisher[]
  /** Where a batch no sink took is written (`<runId>.unpublished.jsonl`). */
  unpublishedDir: string
  /** Stop: no further page is fetched and no further trace started; what is in flight may finish (SIGTERM). */
  stop: AbortSignal
  /** Cancel: what is still in flight is abandoned (the grace period after a stop ran out). */
  cancel: AbortSignal
  log: (line: string) => void
}

export type MonitorWindowStatus =
  /** Scored and sent to every sink (or, with no sink, bundled). */
  | 'published'
  /** The window had no trace at all. */
  | 'no-traces'
  /** Traces came, none needed scoring (sampled out, scored before, unsettled): nothing sent. */
  | 'nothing-new'
  /** A sink refused after its retries: the batch is in `unpublishedFile`. */
  | 'publish-failed'
  /** Published, but the window's bundle could not be written (the problem says why). */
  | 'bundle-failed'
  /** The source failed after its retries: what was scored is in `unpublishedFile`, nothing was sent. */
  | 'source-failed'

export interface MonitorWindowResult {
  status: MonitorWindowStatus
  counts: MonitorCounts
  stoppedBy: MonitorRunInfo['stoppedBy']
  scores: number
  bundleDir: string | null
  unpublishedFile: string | null
  /** The problems behind a non-zero exit, one line each. */
  problems: string[]
}

function zeroCounts(): MonitorCounts {
  return {
    fetched: 0,
    malformed: 0,
    sampledOut: 0,
    alreadyScored: 0,
    unsettled: 0,
    capped: 0,
    leftOut: 0,
    failed: 0,
    scored: 0,
  }
}

/**
 * One window of monitor mode: the source's pages → deterministic sampling → ledger → settle lag → caps → the
 * scorer (bounded concurrency) → the window's scores folded (traces are not kept: each trace leaves memory with its
 * page, its scores are appended to the spill file and reduced to the aggregator's numbers, its events go to the
 * bundle writer) → bundle → every sink (streaming the spill) → ledger. Memory is bounded by the page size and the
 * scoring concurrency, not by the window. Nothing produced is lost: a sink or the source failing leaves the scored
 * batch on disk for `agentevalops monitor publish --from-file`.
 */
export async function runMonitorWindow(o: MonitorWindowOptions): Promise<MonitorWindowResult> {
  const spill = await openScoreSpill(join(o.spillDir, SPILL_FILE))
  try {
    return await scoreWindow(o, spill)
  } finally {
    await spill.remove()
  }
}

/** The window's spill file, in its staging folder. */
export const SPILL_FILE = 'scores.jsonl'

async function scoreWindow(o: MonitorWindowOptions, spill: ScoreSpill): Promise<MonitorWindowResult> {
  const now = o.now ?? (() => new Date())
  const concurrency = Math.max(1, o.concurrency ?? DEFAULT_MONITOR_CONCURRENCY)
  const counts = zeroCounts()
  const skipped = new Map<string, number>()
  const problems: string[] = []
  let stoppedBy: MonitorRunInfo['stoppedBy'] = null
  let costUsd = 0
  let started = 0
  let skipLines = 0
  let bundleFailure: unknown = null
  // Set by the append chain; a holder, so the check after the loop is not narrowed away.
  const spilled: { failure: Error | null } = { failure: null }
  let bundleAdded = false
  let bundleChain: Promise<void> = Promise.resolve()
  const settledBefore = now().getTime() - o.settleMs

  const skip = (traceId: string | null, reason: string) => {
    for (const id of o.identifiers) skipped.set(id, (skipped.get(id) ?? 0) + 1)
    if (skipLines++ < LOGGED_SKIPS) o.log(`skipped trace ${traceId ?? '(no id)'}: ${reason}`)
  }

  // The source is told to stop on a stop signal and when a cap is reached; the pages already fetched are counted.
  const fetching = new AbortController()
  const onStop = () => {
    stoppedBy ??= 'signal'
    fetching.abort()
  }
  if (o.stop.aborted) onStop()
  else o.stop.addEventListener('abort', onStop, { once: true })

  const inFlight = new Set<Promise<void>>()
  /** Resolves once the trace is in the bundle writer: a scoring slot is held until then (see scoreOne). */
  const keep = (scored: ScoredTrace): Promise<void> => {
    counts.scored++
    for (const score of scored.scores) {
      o.aggregator.add(score)
      costUsd += score.costUsd
    }
    // One append and one add at a time, in the order traces finished.
    bundleChain = bundleChain.then(() =>
      spill.append(scored.traceId, scored.scores).catch((e: unknown) => {
        // Scores that cannot be kept cannot be published: no further trace is scored.
        spilled.failure ??= e instanceof Error ? e : new Error(errorMessage(e))
        fetching.abort()
      }),
    )
    if (o.bundle && bundleFailure === null) {
      bundleAdded = true
      bundleChain = bundleChain.then(() =>
        o.bundle!.add(scored).catch((e: unknown) => {
          bundleFailure = e
        }),
      )
    }
    return bundleChain
  }
  const scoreOne = async (trace: FullTrace): Promise<void> => {
    try {
      const scored = await o.scorer(trace, o.cancel)
      if (o.cancel.aborted && scored.record.outcome === 'interrupted') counts.leftOut++
      // Awaited, so a bundle writer slower than the scorers holds back scoring instead of queueing whole traces.
      else await keep(scored)
    } catch (e) {
      if (o.cancel.aborted) counts.leftOut++
      else {
        counts.failed++
        skip(trace.traceId, `the scorer failed: ${errorMessage(e)}`)
      }
    }
  }
  /** What a trace that may not start any more counts as. */
  const notStarted = () => {
    if (stoppedBy === 'signal') counts.leftOut++
    else counts.capped++
  }
  const capReached = (): boolean => {
    if (o.maxTraces !== undefined && started >= o.maxTraces) stoppedBy ??= 'max-traces'
    else if (o.maxCostUsd !== undefined && costUsd >= o.maxCostUsd) stoppedBy ??= 'max-cost'
    else return false
    fetching.abort()
    return true
  }

  let sourceFailure: unknown = null
  try {
    pages: for await (const page of o.source.pages(o.window, fetching.signal)) {
      for (const item of page) {
        counts.fetched++
        if (stoppedBy !== null) {
          notStarted()
          continue
        }
        if (!item.ok) {
          counts.malformed++
          skip(item.traceId, item.reason)
          continue
        }
        const trace = item.trace
        if (!sampledIn(trace.traceId, o.samplingRate)) counts.sampledOut++
        else if (o.ledger?.has(trace.traceId)) counts.alreadyScored++
        else if (Date.parse(trace.endTime) > settledBefore) counts.unsettled++
        else {
          while (inFlight.size >= concurrency) await Promise.race(inFlight)
          if (stoppedBy !== null || spilled.failure !== null || capReached()) {
            notStarted()
            continue
          }
          started++
          const scoring: Promise<void> = scoreOne(trace).finally(() => inFlight.delete(scoring))
          inFlight.add(scoring)
        }
      }
      if (stoppedBy !== null || spilled.failure !== null) break pages
    }
  } catch (e) {
    // A source told to stop may end its fetch with an abort: that is the stop, not a failure.
    if (!fetching.signal.aborted) sourceFailure = e
  } finally {
    o.stop.removeEventListener('abort', onStop)
  }
  await Promise.all(inFlight)
  await bundleChain
  if (spilled.failure !== null) {
    await o.bundle?.discard()
    throw spilled.failure
  }

  const info: MonitorRunInfo = {
    monitorName: o.monitorName,
    monitorId: o.monitorId,
    runId: o.runId,
    window: { start: o.window.start.toISOString(), end: o.window.end.toISOString() },
    levels: o.levels,
    counts,
    stoppedBy,
  }
  const result = (status: MonitorWindowStatus, extra: Partial<MonitorWindowResult> = {}) => ({
    status,
    counts,
    stoppedBy,
    scores: spill.count,
    bundleDir: null,
    unpublishedFile: null,
    problems,
    ...extra,
  })
  if (sourceFailure !== null) problems.push(`${o.source.description}: ${errorMessage(sourceFailure)}`)

  if (counts.fetched === 0 && sourceFailure === null) {
    await o.bundle?.discard()
    return result('no-traces')
  }

  let bundleDir: string | null = null
  if (o.bundle) {
    if (bundleFailure === null && bundleAdded) {
      try {
        bundleDir = await o.bundle.seal(info)
      } catch (e) {
        bundleFailure = e
      }
    } else if (!bundleAdded) await o.bundle.discard()
    if (bundleFailure !== null)
      problems.push(`the window's bundle was not written: ${errorMessage(bundleFailure)}`)
  }

  if (counts.scored === 0 && skipped.size === 0 && sourceFailure === null)
    return result('nothing-new', { bundleDir })

  const batch: MonitorScoreBatch = {
    monitorId: o.monitorId,
    runId: o.runId,
    monitorName: o.monitorName,
    window: info.window,
    scores: () => spill.scores(),
    count: spill.count,
    aggregated: o.aggregator.result(skipped),
  }
  const keepOnDisk = (failures: { sink: string; error: string }[]) =>
    writeUnpublished(o.unpublishedDir, {
      batch,
      failures,
      spillPath: spill.path,
      traces: spill.traces,
      evaluatorsKey: o.evaluatorsKey,
    })

  if (sourceFailure !== null && counts.scored === 0) return result('source-failed', { bundleDir })
  if (sourceFailure !== null) {
    // A window cut short by its source is not published as if it were whole; it waits on disk, complete or not.
    const file = await keepOnDisk([{ sink: o.source.description, error: errorMessage(sourceFailure) }])
    return result('source-failed', { bundleDir, unpublishedFile: file })
  }

  // A stop (SIGTERM) does not stop the publish: what was scored is sent, then the process exits.
  const publishing = new AbortController().signal
  const failures: { sink: string; error: string }[] = []
  for (const publisher of o.publishers) {
    try {
      await publisher.publish(batch, publishing)
    } catch (e) {
      failures.push({ sink: publisher.description, error: errorMessage(e) })
    }
  }
  if (failures.length > 0) {
    for (const f of failures) problems.push(`${f.sink}: ${f.error}`)
    const file = await keepOnDisk(failures)
    return result('publish-failed', { bundleDir, unpublishedFile: file })
  }
  // Published (or, with no sink, bundled): a rerun must not score these traces again.
  if (o.publishers.length > 0 || bundleFailure === null) await o.ledger?.record(spill.traceIds(), o.runId)
  return result(bundleFailure === null ? 'published' : 'bundle-failed', { bundleDir })
}
