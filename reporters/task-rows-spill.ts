import { closeSync, openSync, writeSync } from 'node:fs'
import type { TaskRow, TaskRows, TaskSummary } from '../src/core/index.ts'
import { linesOf } from './line-blocks.ts'

/** Appends are gathered to about this many characters. */
const BLOCK = 64 * 1024

/**
 * A run's task table written to a file of the fold folder as the seal folds each task, so that the rows of a
 * window of 100,000 traces are on disk, not in memory: the writers of scores.json, report.md and report.html read
 * them back in order, each as often as it needs. Synchronous, as the seal's writers iterate it inside their own
 * (synchronous) JSON text: a block read of a local file at a time.
 */
export class TaskRowsSpill implements TaskRows {
  count = 0
  private fd: number | undefined
  private pending = ''

  constructor(private readonly path: string) {
    this.fd = openSync(path, 'w+')
  }

  add(task: TaskSummary, tokens: number): void {
    this.pending += `${JSON.stringify([tokens, task])}\n`
    this.count++
    if (this.pending.length >= BLOCK) this.flush()
  }

  *[Symbol.iterator](): Iterator<TaskRow> {
    const fd = this.open()
    this.flush()
    const lines = linesOf(fd)
    let seen = 0
    let next = lines.next()
    for (; !next.done; next = lines.next()) {
      const [tokens, task] = JSON.parse(next.value) as [number, TaskSummary]
      seen++
      yield { task, tokens }
    }
    if (next.value !== '' || seen !== this.count)
      throw new Error(`${this.path}: the task rows end after ${seen} of ${this.count}`)
  }

  /** Removes nothing: the file is the fold folder's, which goes with it. */
  close(): void {
    if (this.fd === undefined) return
    this.flush()
    closeSync(this.fd)
    this.fd = undefined
  }

  private flush(): void {
    if (this.pending === '') return
    const fd = this.open()
    writeSync(fd, this.pending)
    this.pending = ''
  }

  private open(): number {
    if (this.fd === undefined) throw new Error(`${this.path}: the task rows are closed`)
    return this.fd
  }
}
