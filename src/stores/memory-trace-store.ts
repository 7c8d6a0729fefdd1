import type { TraceEvent, TraceStore, TraceWriter } from '../core/index.ts'
import { AgentEvalOpsError } from '../core/index.ts'
import { closedError } from './jsonl-trace-store.ts'
import { parseTraceJsonl } from './parse-trace.ts'
import { traceFileName } from './trace-file-name.ts'

/**
 * The JSONL store without the disk: events are kept as the same serialized lines and read back through the same
 * parser, so tests on it see exactly what a file store would give them.
 */
export class MemoryTraceStore implements TraceStore {
  private readonly traces = new Map<string, string[]>()

  open(key: { taskId: string; trial: number }): TraceWriter {
    const path = traceFileName(key.taskId, key.trial)
    const lines: string[] = []
    this.traces.set(path, lines)
    let closed = false
    return {
      path,
      // Throws synchronously once finalized, like the JSONL writer.
      append: (event: TraceEvent) => {
        if (closed) throw closedError(path)
        lines.push(`${JSON.stringify(event)}\n`)
        return Promise.resolve()
      },
      finalize: async () => {
        closed = true
      },
    }
  }

  async read(path: string): Promise<TraceEvent[]> {
    const lines = this.traces.get(path)
    if (!lines) throw new AgentEvalOpsError('TRACE_INVALID', `no trace ${path} in this memory store`)
    return parseTraceJsonl(lines.join(''), { file: path }).events
  }

  /** Paths of every trace opened so far. */
  paths(): string[] {
    return [...this.traces.keys()]
  }
}
