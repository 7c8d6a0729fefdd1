import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { AgentEvalOpsError, type TraceEvent, type TraceStore, type TraceWriter } from '../core/index.ts'
import { GroupCommitFile, type GroupCommitStats } from './group-commit-file.ts'
import { readTraceFile } from './parse-trace.ts'
import { traceFileName } from './trace-file-name.ts'

export interface JsonlTraceStoreOptions {
  /**
   * How long a batch of appends waits for more before its write + fsync (see GroupCommitFile). Default 20 ms: a
   * trial's steps that come close together share one fsync, and finalize() never waits for the window.
   */
  commitDelayMs?: number
}

/** One JSONL file per trial under `root`; see GroupCommitFile for what an awaited append guarantees. */
export class JsonlTraceStore implements TraceStore {
  private rootReady: Promise<void> | null = null
  private readonly commitDelayMs: number

  constructor(
    readonly root: string,
    options: JsonlTraceStoreOptions = {},
  ) {
    this.commitDelayMs = options.commitDelayMs ?? 20
  }

  open(key: { taskId: string; trial: number }): JsonlTraceWriter {
    const path = traceFileName(key.taskId, key.trial)
    const file = new GroupCommitFile(join(this.root, path), () => this.ensureRoot(), this.commitDelayMs)
    return new JsonlTraceWriter(path, file)
  }

  async read(path: string): Promise<TraceEvent[]> {
    return (await readTraceFile(join(this.root, path), { file: path })).events
  }

  private ensureRoot(): Promise<void> {
    this.rootReady ??= mkdir(this.root, { recursive: true }).then(
      () => undefined,
      (e: unknown) => {
        // Let the next trial try again rather than fail every later trial on one transient error.
        this.rootReady = null
        throw e
      },
    )
    return this.rootReady
  }
}

export class JsonlTraceWriter implements TraceWriter {
  constructor(
    readonly path: string,
    private readonly file: GroupCommitFile,
  ) {}

  get stats(): GroupCommitStats {
    return this.file.stats
  }

  /** Throws synchronously once finalized, so a late append can't vanish as an unobserved rejection. */
  append(event: TraceEvent): Promise<void> {
    if (this.file.closed) throw closedError(this.path)
    return this.file.append(`${JSON.stringify(event)}\n`)
  }

  finalize(): Promise<void> {
    return this.file.close()
  }
}

export function closedError(path: string): AgentEvalOpsError {
  return new AgentEvalOpsError(
    'TRACE_STORE_CLOSED',
    `trace ${path} is finalized: no more events can be appended`,
    {
      hint: 'Append every event before calling finalize().',
    },
  )
}
