import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { NumberColumn, NumberColumns } from '../src/core/index.ts'

/** Values gathered before a column's file is appended to. */
const BUFFERED = 4096

/**
 * A seal's number columns as files of float64s in the fold folder: a column holds a few KB until its figure reads
 * it back whole (one column at a time), so a window of 100,000 traces keeps no number per trace between.
 */
export class SpilledColumns implements NumberColumns {
  private static made = 0
  private readonly open: SpilledColumn[] = []
  /** Two sets of columns in one folder never share a file. */
  private readonly prefix = `columns-${process.pid}-${SpilledColumns.made++}`

  constructor(private readonly dir: string) {}

  column(): NumberColumn {
    const column = new SpilledColumn(join(this.dir, `${this.prefix}-${this.open.length}.f64`))
    this.open.push(column)
    return column
  }

  /** Closes the columns' files (the fold folder, which holds them, goes with the run). */
  close(): void {
    for (const column of this.open) column.close()
  }
}

class SpilledColumn implements NumberColumn {
  length = 0
  private fd: number | undefined
  private readonly buffer = new Float64Array(BUFFERED)
  private buffered = 0

  constructor(private readonly path: string) {}

  push(value: number): void {
    this.buffer[this.buffered++] = value
    this.length++
    if (this.buffered === BUFFERED) this.flush()
  }

  values(): readonly number[] {
    this.flush()
    if (this.fd === undefined) return []
    const bytes = fstatSync(this.fd).size
    if (bytes !== this.length * 8)
      throw new Error(`${this.path}: ${bytes} bytes for ${this.length} numbers (${this.length * 8} expected)`)
    // Its own ArrayBuffer: a pooled Buffer's offset need not be a multiple of 8, which a Float64Array needs.
    const data = new Uint8Array(new ArrayBuffer(bytes))
    for (let done = 0; done < bytes;) {
      const read = readSync(this.fd, data, done, bytes - done, done)
      if (read === 0) throw new Error(`${this.path} ends at byte ${done} of ${bytes}`)
      done += read
    }
    return Array.from(new Float64Array(data.buffer))
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  private flush(): void {
    if (this.buffered === 0) return
    this.fd ??= openSync(this.path, 'w+')
    const bytes = Buffer.from(this.buffer.buffer, 0, this.buffered * 8)
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done)
    this.buffered = 0
  }
}
