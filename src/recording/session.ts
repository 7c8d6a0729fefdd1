import {
  AgentEvalOpsError,
  passThroughGate,
  type JsonObject,
  type ModelCallGate,
  type ModelExchange,
  type UnkeyedCalls,
} from '../core/index.ts'
import {
  appendToCassette,
  cassettePath,
  readCassette,
  writeCassette,
  type RecordingEntry,
} from './cassette.ts'
import { describeDiff, jsonDiff } from './json-diff.ts'
import { RECORD_ENV, type RecordMode } from './mode.ts'
import { normalizeRequest, requestKey } from './request-key.ts'

export interface TrialGate extends ModelCallGate {
  /** What the trial's calls were answered with, in call order. */
  readonly used: readonly RecordingEntry[]
}

export interface RecordingSessionOptions {
  /** The folder of this eval file's cassettes, e.g. `evals/__recordings__/judge.eval.ts`. */
  dir: string
  mode: RecordMode
  /** In CI, `auto` replays only: a missing recording fails like a missing snapshot. */
  ci: boolean
  /**
   * Read every task's recordings from this one file instead of `dir` (a bundle's recordings.jsonl, for
   * `agentevalops replay`). Only with mode `replay`: nothing is ever written to it.
   */
  sourceFile?: string | undefined
}

/** One task's cassette: loaded once, written in order (trials of a task run concurrently). */
interface Cassette {
  path: string
  loaded: Promise<RecordingEntry[]>
  /** Entries recorded in this session (in `record` mode, the file's whole new content). */
  fresh: RecordingEntry[]
  writes: Promise<void>
}

/** Where a trial's calls are recorded: `benchmark` is left out only by a caller that runs no benchmark. */
export interface RecordingTrial {
  benchmark?: string | undefined
  taskId: string
  trial: number
}

/**
 * Record and replay of the model calls of one eval file's trials. Each trial gets a gate
 * (`gateFor`) that keys its calls by (benchmark, trial, normalised request, ordinal) in the task's cassette, which
 * the benchmarks of the file that share the task id share.
 */
export class RecordingSession {
  private readonly cassettes = new Map<string, Cassette>()

  constructor(private readonly options: RecordingSessionOptions) {
    if (options.sourceFile !== undefined && options.mode !== 'replay') {
      throw new AgentEvalOpsError('CONFIG_INVALID', 'recordings from a single file can only be replayed', {
        hint: `Set ${RECORD_ENV}=replay, or leave the recordings file out.`,
      })
    }
  }

  get mode(): RecordMode {
    return this.options.mode
  }

  /** The trial's gate, and the exchanges it replayed or recorded (for the bundle's recordings.jsonl). */
  gateFor(ids: RecordingTrial): TrialGate {
    const used: RecordingEntry[] = []
    if (this.options.mode === 'off')
      return { exchange: (request, call) => passThroughGate.exchange(request, call), used }
    const ordinals = new Map<string, number>()
    return {
      used,
      unkeyed: this.unkeyedCalls(),
      exchange: async (request, call) => {
        const normalized = normalizeRequest(request)
        const key = requestKey(normalized)
        // Counted before any await, so the order of a trial's calls (not of their answers) decides it.
        const ordinal = ordinals.get(key) ?? 0
        ordinals.set(key, ordinal + 1)
        const { entry, ...result } = await this.exchange({ ...ids, key, ordinal, request: normalized }, call)
        used.push(stamped(entry, ids.benchmark))
        return result
      },
    }
  }

  /**
   * A call with no request cannot be keyed, so it is neither recorded nor replayed: where the mode promises a
   * recording (`record`) or no network (`replay`, and `auto` in CI, which only replays) it is refused; plain
   * `auto` makes it and warns, since it will reach the network on every run.
   */
  private unkeyedCalls(): UnkeyedCalls {
    const { mode, ci } = this.options
    if (mode === 'record')
      return { action: 'refuse', because: `${RECORD_ENV}=record records every model call` }
    if (mode === 'replay')
      return { action: 'refuse', because: `${RECORD_ENV}=replay answers every model call from its recording` }
    if (ci)
      return {
        action: 'refuse',
        because: `in CI (CI=true) ${RECORD_ENV}=auto only replays: every model call must come from a recording`,
      }
    return {
      action: 'warn',
      because: `it is not recorded (${RECORD_ENV}=auto), so every run calls the model again and a replay cannot answer it`,
    }
  }

  private async exchange(
    at: RecordingTrial & { key: string; ordinal: number; request: JsonObject },
    call: () => Promise<ModelExchange>,
  ): Promise<ModelExchange & { replayed: boolean; entry: RecordingEntry }> {
    const { mode, ci } = this.options
    const cassette = this.cassette(at.taskId)
    if (mode !== 'record') {
      const same = (await cassette.loaded).filter(
        (e) => e.trial === at.trial && e.key === at.key && e.ordinal === at.ordinal,
      )
      // A recording without a benchmark predates them: it answers the task's trial in whichever benchmark asks.
      const recorded =
        same.find((e) => e.benchmark === at.benchmark) ?? same.find((e) => e.benchmark === undefined)
      if (recorded) {
        const { response, attempts } = recorded
        return { response, attempts, ...errorOf(recorded), replayed: true, entry: recorded }
      }
      if (mode === 'replay' || ci) throw await this.missing(at, cassette, mode === 'auto')
    }
    const made = await call()
    const entry: RecordingEntry = {
      v: 1,
      ...at,
      response: made.response,
      attempts: made.attempts,
      ...errorOf(made),
      recordedAt: new Date().toISOString(),
    }
    await this.save(cassette, entry)
    return { ...made, replayed: false, entry }
  }

  private cassette(taskId: string): Cassette {
    let cassette = this.cassettes.get(taskId)
    if (!cassette) {
      const path = cassettePath(this.options.dir, taskId)
      // `record` starts the task's cassette afresh: nothing old is read, and the file is rewritten.
      const { sourceFile } = this.options
      const loaded =
        this.options.mode === 'record'
          ? Promise.resolve([])
          : sourceFile !== undefined
            ? this.sourceEntries(sourceFile).then((all) => all.filter((e) => e.taskId === taskId))
            : readCassette(path)
      cassette = { path, loaded, fresh: [], writes: Promise.resolve() }
      this.cassettes.set(taskId, cassette)
    }
    return cassette
  }

  private source: Promise<RecordingEntry[]> | undefined

  private sourceEntries(file: string): Promise<RecordingEntry[]> {
    this.source ??= readCassette(file)
    return this.source
  }

  private async save(cassette: Cassette, entry: RecordingEntry): Promise<void> {
    cassette.fresh.push(entry)
    const write =
      this.options.mode === 'record'
        ? () => writeCassette(cassette.path, sorted(cassette.fresh))
        : () => appendToCassette(cassette.path, entry)
    cassette.writes = cassette.writes.then(write, write)
    await cassette.writes
  }

  private async missing(
    at: RecordingTrial & { ordinal: number; request: JsonObject },
    cassette: Cassette,
    becauseCi: boolean,
  ): Promise<AgentEvalOpsError> {
    const entries = await cassette.loaded
    const sameTrial = entries.filter(
      (e) => e.trial === at.trial && (e.benchmark === undefined || e.benchmark === at.benchmark),
    )
    const candidates = sameTrial.length > 0 ? sameTrial : entries
    let closest: { entry: RecordingEntry; diff: string[] } | undefined
    for (const entry of candidates) {
      const diff = describeDiff(jsonDiff(entry.request, at.request, 50))
      if (!closest || diff.length < closest.diff.length) closest = { entry, diff }
    }
    const of = at.benchmark === undefined ? '' : ` (benchmark ${JSON.stringify(at.benchmark)})`
    const what = `task ${JSON.stringify(at.taskId)} trial ${at.trial}${of}: no recorded model call matches this request (${JSON.stringify(at.request.model ?? '?')}, call #${at.ordinal + 1} of its kind)`
    const near = closest
      ? `; the closest recorded request (${cassette.path}, trial ${closest.entry.trial}) differs at:\n  ${closest.diff.slice(0, 8).join('\n  ')}`
      : `; ${cassette.path} has no recording for this task`
    const why = becauseCi ? ' In CI (CI=true) a missing recording is an error, like a missing snapshot.' : ''
    return new AgentEvalOpsError('RECORDING_MISSING', `${what}${near}`, {
      hint: `${why} Record it with ${RECORD_ENV}=auto (adds what is missing) or ${RECORD_ENV}=record (re-records everything), and commit the recordings.`.trim(),
    })
  }
}

/** A recording from before recordings named their benchmark, as the trial it answered used it: with its benchmark. */
function stamped(entry: RecordingEntry, benchmark: string | undefined): RecordingEntry {
  if (entry.benchmark !== undefined || benchmark === undefined) return entry
  const { v, ...rest } = entry
  return { v, benchmark, ...rest }
}

function errorOf(x: { error?: string | undefined }): { error?: string } {
  return x.error === undefined ? {} : { error: x.error }
}

/** Stable file content whatever order concurrent trials finished in. */
function sorted(entries: readonly RecordingEntry[]): RecordingEntry[] {
  return [...entries].sort(
    (a, b) =>
      (a.benchmark ?? '').localeCompare(b.benchmark ?? '') ||
      a.trial - b.trial ||
      a.key.localeCompare(b.key) ||
      a.ordinal - b.ordinal,
  )
}
