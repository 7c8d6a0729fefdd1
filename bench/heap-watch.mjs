// Preloaded with --import into a process a bench measures: what the heap still held after each full GC (what the
// process keeps, not the garbage V8 lets pile up between collections, which peak RSS also counts), the most of it
// written to AGENTEVALOPS_HEAP_WATCH_FILE as the process exits. Bench tooling only; the package never loads it.
import { writeFileSync } from 'node:fs'
import v8 from 'node:v8'

const file = process.env.AGENTEVALOPS_HEAP_WATCH_FILE
if (file) {
  const profiler = new v8.GCProfiler()
  profiler.start()
  process.once('exit', () => {
    let peakLiveBytes = 0
    let fullGcs = 0
    for (const gc of profiler.stop()?.statistics ?? []) {
      if (gc.gcType !== 'MarkSweepCompact') continue
      fullGcs++
      peakLiveBytes = Math.max(peakLiveBytes, gc.afterGC.heapStatistics.usedHeapSize)
    }
    writeFileSync(file, JSON.stringify({ peakLiveBytes, fullGcs }))
  })
}
