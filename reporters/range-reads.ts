import { readSync } from 'node:fs'

/** A stretch of a file. */
export interface ByteRange {
  offset: number
  length: number
}

/** Ranges this close together are read as one: the bytes between cost less than another read. */
const JOIN_GAP = 16 * 1024
/** A joined read is never longer than this, so a batch's buffers stay small whatever its ranges are. */
const MAX_SPAN = 4 * 1024 * 1024

/**
 * Every range of an open file, in the order asked, by as few reads as their positions allow: sorted by offset, the
 * ones that touch or nearly touch are read as one span and sliced. The seal asks for a few hundred trials' ranges at
 * a time in bundle order, which on disk are in fold order; one read per range would be thousands of round trips
 * through the thread pool. Synchronous: the data was just written and is in the page cache, and the caller yields
 * between batches.
 */
export function readRanges(fd: number, ranges: readonly ByteRange[], what: string): Buffer[] {
  const order = ranges.map((_, i) => i).sort((a, b) => ranges[a]!.offset - ranges[b]!.offset)
  const out: Buffer[] = new Array<Buffer>(ranges.length)
  let i = 0
  while (i < order.length) {
    const first = ranges[order[i]!]!
    let end = first.offset + first.length
    let j = i + 1
    while (j < order.length) {
      const next = ranges[order[j]!]!
      const nextEnd = Math.max(end, next.offset + next.length)
      if (next.offset - end > JOIN_GAP || nextEnd - first.offset > MAX_SPAN) break
      end = nextEnd
      j++
    }
    const span = readExactly(fd, first.offset, end - first.offset, what)
    for (let k = i; k < j; k++) {
      const r = ranges[order[k]!]!
      out[order[k]!] = span.subarray(r.offset - first.offset, r.offset - first.offset + r.length)
    }
    i = j
  }
  return out
}

function readExactly(fd: number, offset: number, length: number, what: string): Buffer {
  const buffer = Buffer.allocUnsafe(length)
  let done = 0
  while (done < length) {
    const read = readSync(fd, buffer, done, length - done, offset + done)
    if (read === 0) throw new Error(`${what} ends before byte ${offset + done}`)
    done += read
  }
  return buffer
}
