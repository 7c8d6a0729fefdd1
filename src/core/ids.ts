import { randomBytes } from 'node:crypto'
import { uuidv7 } from 'uuidv7'

/** Run ids sort by creation time, so `ls runs/` lists runs in the order they started. */
export function newRunId(): string {
  return uuidv7()
}

/** 16 hex chars, the OpenTelemetry span id width. */
export function newSpanId(): string {
  return randomBytes(8).toString('hex')
}
