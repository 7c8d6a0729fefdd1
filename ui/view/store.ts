import type { LiveEvent, RunEntry } from '../../src/view/api.ts'
import type { FeedStatus, ViewClient } from './api-client.ts'
import { applyLiveEvent } from './live-runs.ts'

type Listener = () => void

/** One events stream for the whole app: pages listen to it to update without a reload. */
export class LiveFeed {
  status: FeedStatus = 'connecting'
  problems: string[] = []
  private readonly listeners = new Set<(event: LiveEvent) => void>()
  private readonly changes = new Set<Listener>()
  private close: (() => void) | null = null

  constructor(private readonly client: ViewClient) {}

  start(): void {
    if (this.close) return
    this.close = this.client.events({
      event: (event) => this.listeners.forEach((l) => l(event)),
      status: (status) => {
        // Events sent while the stream was down are lost: after a reconnect, pages ask again as if the folder changed.
        const missed = status === 'open' && (this.status === 'reconnecting' || this.status === 'closed')
        this.status = status
        this.changes.forEach((l) => l())
        if (missed) this.listeners.forEach((l) => l({ type: 'runs-changed' }))
      },
      problem: (text) => {
        this.problems = [...this.problems.slice(-4), text]
        this.changes.forEach((l) => l())
      },
    })
  }

  stop(): void {
    this.close?.()
    this.close = null
  }

  onEvent(listener: (event: LiveEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  onChange(listener: Listener): () => void {
    this.changes.add(listener)
    return () => this.changes.delete(listener)
  }
}

export interface RunsState {
  runsDir: string | null
  runs: readonly RunEntry[] | null
  error: string | null
}

/** The runs list as the server last said, with the live events applied since. */
export class RunsStore {
  state: RunsState = { runsDir: null, runs: null, error: null }
  private readonly listeners = new Set<Listener>()
  private loading: Promise<void> | null = null
  /** Asked again while a load was under way: its answer may predate the change, so one more load follows it. */
  private again = false
  /** Events that arrive while the list loads are applied to it once it is here. */
  private pending: LiveEvent[] = []

  constructor(
    private readonly client: ViewClient,
    feed: LiveFeed,
  ) {
    feed.onEvent((event) => this.apply(event))
  }

  load(): Promise<void> {
    if (this.loading) {
      this.again = true
      return this.loading
    }
    this.loading = this.client.runs().then((loaded) => {
      this.loading = null
      if (this.again) {
        this.again = false
        return this.load()
      }
      if (!loaded.ok) return this.set({ ...this.state, error: loaded.error })
      let runs: readonly RunEntry[] = loaded.data.runs
      for (const event of this.pending) runs = applyLiveEvent(runs, event).runs
      this.pending = []
      this.set({ runsDir: loaded.data.runsDir, runs, error: null })
    })
    return this.loading
  }

  apply(event: LiveEvent): void {
    const runs = this.state.runs
    if (!runs) {
      if (event.type !== 'runs-changed') this.pending.push(event)
      else if (this.loading) this.again = true
      else if (this.state.error) void this.load()
      return
    }
    const next = applyLiveEvent(runs, event)
    if (next.refetch) void this.load()
    else this.set({ ...this.state, runs: next.runs })
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private set(state: RunsState): void {
    this.state = state
    this.listeners.forEach((l) => l())
  }
}
