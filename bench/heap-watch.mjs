// Preloaded with --import into a process a bench measures: what the heap still held after each full GC (what the
// process keeps, not the garbage V8 lets pile up between collections, which peak RSS also counts), the most of it
// written to AGENTEVALOPS_HEAP_WATCH_FILE as the process exits. A full GC V8 starts itself is incremental: what was
// allocated while it marked counts as live, so that figure holds some garbage. With --expose-gc and
// AGENTEVALOPS_HEAP_WATCH_SAMPLE_MS, the heap is also collected outright every so many ms and the most it then held
// is written too (retainedBytes): what the process keeps, at the cost of those collections. Bench tooling only; the
// package never loads it.
import { writeFileSync } from 'node:fs'
import v8 from 'node:v8'

const file = process.env.AGENTEVALOPS_HEAP_WATCH_FILE
if (file) {
  const profiler = new v8.GCProfiler()
  profiler.start()
  const sampleMs = Number(process.env.AGENTEVALOPS_HEAP_WATCH_SAMPLE_MS ?? 0)
  let retainedBytes = null
  if (sampleMs > 0 && typeof globalThis.gc === 'function') {
    retainedBytes = 0
    const sample = () => {
      globalThis.gc()
      retainedBytes = Math.max(retainedBytes, process.memoryUsage().heapUsed)
    }
    setInterval(sample, sampleMs).unref()
    process.once('beforeExit', sample)
  }
  process.once('exit', () => {
    let peakLiveBytes = 0
    let fullGcs = 0
    for (const gc of profiler.stop()?.statistics ?? []) {
      if (gc.gcType !== 'MarkSweepCompact') continue
      fullGcs++
      peakLiveBytes = Math.max(peakLiveBytes, gc.afterGC.heapStatistics.usedHeapSize)
    }
    writeFileSync(file, JSON.stringify({ peakLiveBytes, fullGcs, retainedBytes }))
  })
}
