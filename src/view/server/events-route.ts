import type { LiveEvent, RunEntry } from '../api.ts'
import type { Catalog } from '../catalog/index.ts'
import type { LiveEventSource, LiveListener } from '../live/index.ts'

/**
 * What the events route streams: the live runs' events (src/view/live), and the catalog's `runs-changed` when a
 * re-scan changed the list outside a live run (a bundle copied in, pruned). A run's end is told with the entry the
 * runs list now has for it (its sealed bundle's, read by the catalog) rather than the live tally's last figures, so
 * a page that applies it holds the same row a reload would show.
 */
export class ViewEvents implements LiveEventSource {
  private readonly listeners = new Set<LiveListener>()
  private readonly unsubscribe: (() => void)[]
  /** Events go out in the order they came, though a run's end waits for the catalog's re-scan. */
  private queue: Promise<void> = Promise.resolve()

  constructor(
    private readonly catalog: Catalog,
    private readonly live: LiveEventSource | null,
  ) {
    this.unsubscribe = [catalog.onChange(() => this.enqueue(async () => ({ type: 'runs-changed' })))]
    if (live) this.unsubscribe.push(live.subscribe((event) => this.enqueue(() => this.resolve(event))))
  }

  subscribe(listener: LiveListener): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  snapshot(): LiveEvent[] {
    return this.live?.snapshot() ?? []
  }

  /** Stops listening to the catalog and the live runs. */
  close(): void {
    for (const off of this.unsubscribe) off()
    this.listeners.clear()
  }

  private enqueue(make: () => Promise<LiveEvent>): void {
    this.queue = this.queue
      .then(make)
      .then((event) => {
        for (const listener of [...this.listeners]) listener(event)
      })
      // One event that could not be made (a re-scan failed) must not stop the ones after it.
      .catch(() => undefined)
  }

  private async resolve(event: LiveEvent): Promise<LiveEvent> {
    if (event.type !== 'run-ended' || event.ending !== 'sealed') return event
    const sealed = await this.sealedEntry(event.run)
    return sealed ? { ...event, run: sealed } : event
  }

  private async sealedEntry(live: RunEntry): Promise<RunEntry | undefined> {
    const known = this.catalog.get(live.run)
    if (known) return known.run.entry
    await this.catalog.refresh().catch(() => false)
    return this.catalog.get(live.run)?.run.entry
  }
}
