import { watch, type FSWatcher } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { isProcessAlive } from '../../engine/index.ts'
import type { LiveEvent, RunEntry } from '../api.ts'
import { FollowedRun, readRunHeader } from './followed-run.ts'

export const STAGING_DIR = '.staging'

export interface LiveRunsOptions {
  /** The runs folder: live runs are the folders of its `.staging/`. */
  runsDir: string
  /** The bounded poll that backs fs.watch (which misses events on some file systems). Default 200 ms. */
  pollMs?: number
  /** At most one run-progress per run per this long: a burst of finished trials is one event. Default 150 ms. */
  coalesceMs?: number
  /** Use fs.watch besides the poll. Default true. */
  watch?: boolean
  /** A staging folder that could not be read: said once per folder and kind of trouble; the folder is retried. */
  onProblem?: (message: string) => void
}

export type LiveListener = (event: LiveEvent) => void

/** What an events stream needs of the live runs: the events from now on, and where every live run stands now. */
export interface LiveEventSource {
  subscribe(listener: LiveListener): () => void
  snapshot(): LiveEvent[]
}

/** A watch event brings the next scan this close. */
const WATCH_DELAY_MS = 50
/** A folder without a readable header yet is retried, less often the longer it stays so. */
const HEADER_RETRY_MAX_MS = 5_000
/** fs.watch handles held for runs' log folders; past this the poll alone follows a run. */
const MAX_LOG_WATCHERS = 32

interface Pending {
  nextTryAt: number
  delayMs: number
}

/**
 * The runs in progress under a runs folder, from their staging folders (`<runsDir>/.staging/<name>/`: run.json and
 * the worker logs), as LiveEvents: run-started when a live run's folder appears (each watch rerun is a run, and a
 * folder of its own), run-progress as its trials finish (coalesced), run-ended when the folder goes (the bundle is
 * sealed) or its process dies. A folder whose header names a process not alive on this host is a dead run's, left
 * for `agentevalops recover`, never shown live. Detection: fs.watch where it works, and a poll every `pollMs`.
 */
export class LiveRuns implements LiveEventSource {
  private readonly runs = new Map<string, FollowedRun>()
  /** Folders that are no live run (a dead run's, another host's): not looked at again while they stay. */
  private readonly ignored = new Set<string>()
  private readonly pending = new Map<string, Pending>()
  private readonly listeners = new Set<LiveListener>()
  private readonly problems = new Set<string>()
  private readonly pollMs: number
  private readonly coalesceMs: number
  private readonly stagingRoot: string
  private readonly host = hostname()
  private timer: NodeJS.Timeout | null = null
  private timerDueAt = 0
  private scanning: Promise<void> | null = null
  private rescan = false
  private stopped = true
  private firstScan: Promise<void> | null = null
  private readonly watchers = new Map<string, { watcher: FSWatcher; ino: number }>()

  constructor(private readonly options: LiveRunsOptions) {
    this.pollMs = Math.max(10, options.pollMs ?? 200)
    this.coalesceMs = Math.max(0, options.coalesceMs ?? 150)
    this.stagingRoot = join(options.runsDir, STAGING_DIR)
  }

  /** Starts watching; resolves once the folder has been scanned (every run live now is known). */
  start(): Promise<void> {
    if (!this.stopped) return this.firstScan ?? Promise.resolve()
    this.stopped = false
    this.firstScan = this.scan()
    return this.firstScan
  }

  /** Stops watching and releases every timer, watcher and open log. */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    for (const { watcher } of this.watchers.values()) watcher.close()
    this.watchers.clear()
    await this.scanning
    await Promise.allSettled([...this.runs.values()].map((r) => r.close()))
    this.runs.clear()
    this.ignored.clear()
    this.pending.clear()
  }

  subscribe(listener: LiveListener): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  get listenerCount(): number {
    return this.listeners.size
  }

  /** A run-started for every live run, with its figures now: what a client that connects mid-run is told first. */
  snapshot(): LiveEvent[] {
    return this.live().map((run) => ({ type: 'run-started', run }))
  }

  /** The live runs' entries, oldest first. */
  live(): RunEntry[] {
    return [...this.runs.values()]
      .map((r) => r.entry)
      .sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? '') || a.runId.localeCompare(b.runId))
  }

  private emit(event: LiveEvent): void {
    // A scan that was under way when stop() was called says nothing more.
    if (this.stopped) return
    for (const listener of [...this.listeners]) {
      try {
        listener(event)
      } catch (e) {
        this.problem('listener', `a live-events listener failed: ${(e as Error).message ?? String(e)}`)
      }
    }
  }

  private problem(key: string, message: string): void {
    if (this.problems.has(key)) return
    this.problems.add(key)
    this.options.onProblem?.(message)
  }

  /** Runs a scan now unless one runs; a scan asked for meanwhile follows it. Scans never overlap. */
  private scan(): Promise<void> {
    if (this.scanning) {
      this.rescan = true
      return this.scanning
    }
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const scanning = this.scanOnce()
      .catch((e: unknown) => this.problem('scan', `cannot scan ${this.stagingRoot}: ${String(e)}`))
      .finally(() => {
        this.scanning = null
        if (this.stopped) return
        const again = this.rescan
        this.rescan = false
        this.schedule(again ? WATCH_DELAY_MS : this.pollMs)
      })
    this.scanning = scanning
    return scanning
  }

  /** The next scan in `delayMs`, or sooner if one is due sooner already. */
  private schedule(delayMs: number): void {
    if (this.stopped) return
    if (this.scanning) {
      if (delayMs < this.pollMs) this.rescan = true
      return
    }
    const dueAt = Date.now() + delayMs
    if (this.timer && this.timerDueAt <= dueAt) return
    if (this.timer) clearTimeout(this.timer)
    this.timerDueAt = dueAt
    this.timer = setTimeout(() => {
      this.timer = null
      void this.scan()
    }, delayMs)
    this.timer.unref()
  }

  private async scanOnce(): Promise<void> {
    const names = await readdir(this.stagingRoot).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return null
      throw e
    })
    await this.watchFolders(names !== null)
    const present = new Set(names ?? [])
    for (const name of [...this.runs.keys()]) if (!present.has(name)) await this.end(name, 'gone')
    for (const name of [...this.ignored]) if (!present.has(name)) this.ignored.delete(name)
    for (const name of [...this.pending.keys()]) if (!present.has(name)) this.pending.delete(name)
    for (const name of [...present].sort()) {
      if (this.stopped) return
      if (this.ignored.has(name)) continue
      const run = this.runs.get(name)
      if (run) await this.follow(name, run)
      else await this.discover(name)
    }
  }

  /** A folder not seen before (or without a header so far): a live run starts, or it is left alone. */
  private async discover(name: string): Promise<void> {
    const now = Date.now()
    const pending = this.pending.get(name)
    if (pending && pending.nextTryAt > now) return
    const dir = join(this.stagingRoot, name)
    const header = await readRunHeader(dir)
    if (typeof header === 'string') {
      // The reporter makes the folder, then writes its header: a folder without one is usually a moment old.
      const delayMs = Math.min(HEADER_RETRY_MAX_MS, (pending?.delayMs ?? this.pollMs / 2) * 2)
      this.pending.set(name, { nextTryAt: now + delayMs, delayMs })
      return
    }
    this.pending.delete(name)
    if (header.hostname !== this.host || !isProcessAlive(header.pid)) {
      // A dead run's folder (recover's to turn into a bundle), or another host's, whose process cannot be asked.
      this.ignored.add(name)
      return
    }
    const run = new FollowedRun(dir, header)
    try {
      await run.catchUp()
    } catch (e) {
      await run.close()
      this.problem(`read:${name}`, `cannot read the live run in ${dir}: ${String(e)}; retrying`)
      return
    }
    this.runs.set(name, run)
    this.watchLogs(name, run)
    run.unsent = false
    run.lastSentAt = Date.now()
    this.emit({ type: 'run-started', run: run.entry })
  }

  private async follow(name: string, run: FollowedRun): Promise<void> {
    // Its logs folder appears with its first worker, after the run started.
    this.watchLogs(name, run)
    try {
      await run.catchUp()
    } catch (e) {
      this.problem(`read:${name}`, `cannot read the live run in ${run.dir}: ${String(e)}; retrying`)
    }
    if (!isProcessAlive(run.header.pid)) {
      // Its process seals, removes the folder, then exits: a folder still there after the exit is a dead run's.
      const stillThere = await lstat(run.dir).then(
        () => true,
        () => false,
      )
      await this.end(name, stillThere ? 'died' : 'gone')
      return
    }
    if (!run.unsent) return
    const wait = run.lastSentAt + this.coalesceMs - Date.now()
    if (wait > 0) {
      this.schedule(wait)
      return
    }
    run.unsent = false
    run.lastSentAt = Date.now()
    this.emit({ type: 'run-progress', run: run.entry })
  }

  /** The run's folder went (or its process died): what its open logs still hold, then its last entry. */
  private async end(name: string, why: 'gone' | 'died'): Promise<void> {
    const run = this.runs.get(name)
    if (!run) return
    this.runs.delete(name)
    this.unwatch(join(run.dir, 'logs'))
    await run.catchUp(false).catch(() => false)
    await run.close()
    if (why === 'died') this.ignored.add(name)
    const ending = why === 'died' ? 'died' : (await this.sealed(run.header.runId)) ? 'sealed' : 'removed'
    this.emit({ type: 'run-ended', run: run.entry, ending })
  }

  /** Whether the run's bundle is in place (its metadata is written before the staging folder is removed). */
  private sealed(runId: string): Promise<boolean> {
    return lstat(join(this.options.runsDir, runId, 'metadata.json')).then(
      (s) => s.isFile(),
      () => false,
    )
  }

  /** fs.watch on the runs folder and its `.staging` (when there), each re-made if its folder was made anew. */
  private async watchFolders(stagingExists: boolean): Promise<void> {
    if (this.options.watch === false || this.stopped) return
    await this.watchDir(this.options.runsDir)
    if (stagingExists) await this.watchDir(this.stagingRoot)
    else this.unwatch(this.stagingRoot)
  }

  private watchLogs(name: string, run: FollowedRun): void {
    if (this.options.watch === false || this.watchers.size >= MAX_LOG_WATCHERS + 2) return
    void this.watchDir(join(run.dir, 'logs')).catch(() =>
      this.problem(`watch:${name}`, `cannot watch ${run.dir}; polling it`),
    )
  }

  private async watchDir(dir: string): Promise<void> {
    const ino = await lstat(dir).then(
      (s) => (s.isDirectory() ? s.ino : null),
      () => null,
    )
    const known = this.watchers.get(dir)
    if (known && known.ino === ino) return
    this.unwatch(dir)
    if (ino === null || this.stopped) return
    let watcher: FSWatcher
    try {
      watcher = watch(dir, { persistent: false }, () => this.schedule(WATCH_DELAY_MS))
    } catch {
      // No watch here (a network file system, inotify limits): the poll alone will do.
      return
    }
    watcher.on('error', () => this.unwatch(dir))
    this.watchers.set(dir, { watcher, ino })
  }

  private unwatch(dir: string): void {
    const known = this.watchers.get(dir)
    if (!known) return
    this.watchers.delete(dir)
    known.watcher.close()
  }
}
