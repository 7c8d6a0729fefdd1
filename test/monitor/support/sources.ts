import type { FullTrace } from '../../../src/core/index.ts'
import type {
  MonitorTraceSource,
  MonitorWindow,
  ScorePublisher,
  SourcedTrace,
} from '../../../src/monitor/index.ts'
import { heldBatch, type HeldBatch } from './batch.ts'

/** A source over items held by the test, a page of `pageSize` at a time; `served` counts the pages handed out. */
export function arraySource(items: readonly (FullTrace | SourcedTrace)[], pageSize = 10) {
  const state = { served: 0, windows: [] as MonitorWindow[] }
  const source: MonitorTraceSource = {
    description: 'in-test traces',
    async *pages(window, signal) {
      state.windows.push(window)
      for (let at = 0; at < items.length; at += pageSize) {
        if (signal.aborted) return
        state.served++
        yield items
          .slice(at, at + pageSize)
          .map((item): SourcedTrace => ('ok' in item ? item : { ok: true, trace: item }))
      }
    },
  }
  return Object.assign(source, { state })
}

/** A publisher that keeps what it was sent, failing the first `failures` publishes with the given message. */
export function recordingPublisher(
  failures = 0,
  message = 'publisher http://127.0.0.1:1/x answered 500 three times',
) {
  const batches: HeldBatch[] = []
  let failed = 0
  const publisher: ScorePublisher = {
    description: 'in-test publisher',
    async publish(batch) {
      if (failed < failures) {
        failed++
        throw new Error(message)
      }
      batches.push(await heldBatch(batch))
    },
  }
  return Object.assign(publisher, { batches })
}
