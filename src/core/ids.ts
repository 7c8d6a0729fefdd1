import { randomFillSync } from 'node:crypto'
import { uuidv7 } from 'uuidv7'

/** Run ids sort by creation time, so `ls runs/` lists runs in the order they started. */
export function newRunId(): string {
  return uuidv7()
}

// Span ids are minted for every trace event: one randomFillSync per 512 ids instead of one per id.
const SPAN_ID_BYTES = 8
const pool = Buffer.alloc(SPAN_ID_BYTES * 512)
let offset = pool.length

/** 16 hex chars, the OpenTelemetry span id width. */
export function newSpanId(): string {
  if (offset + SPAN_ID_BYTES > pool.length) {
    randomFillSync(pool)
    offset = 0
  }
  const id = pool.toString('hex', offset, offset + SPAN_ID_BYTES)
  offset += SPAN_ID_BYTES
  // An all-zero span id is invalid in OpenTelemetry; the odds are 2^-64, but the fix is one line.
  return id === '0000000000000000' ? newSpanId() : id
}
