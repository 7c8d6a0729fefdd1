import { isUtf8 } from 'node:buffer'
import { readChunks, type OpenFile } from './bundle-file.ts'

/** Measured: larger chunks neither read nor parse faster, and cost resident memory. */
const CHUNK_BYTES = 256 * 1024

/** One line of a JSONL file, numbered from 1, without its newline. */
export type Line =
  | { number: number; text: string; utf8: boolean }
  /** A line longer than the limit: skipped without being held, only its length is known. */
  | { number: number; tooLong: true; bytes: number }

export interface ReadLinesOptions {
  maxLineBytes: number
  /** Sees every byte of the file, in order, so a caller can checksum it in the same read. */
  onChunk?: (chunk: Buffer) => void
}

/**
 * Streams a file line by line, holding at most one line (up to `maxLineBytes`) and two chunks (one being read).
 * Lines are split on bytes, before decoding, so that each is known to be valid UTF-8 or not (a decoder would
 * silently replace bad bytes). The final line needs no trailing newline. `visit` is called synchronously for every
 * line: no promise per line.
 */
export async function readLines(
  file: OpenFile,
  visit: (line: Line) => void,
  options: ReadLinesOptions,
): Promise<void> {
  const { maxLineBytes, onChunk } = options
  let pending: Buffer[] = []
  let pendingBytes = 0
  let skipping = false
  let number = 0

  const take = (part: Buffer) => {
    pendingBytes += part.length
    if (skipping) return
    if (pendingBytes > maxLineBytes) {
      skipping = true
      pending = []
    } else if (part.length > 0) {
      pending.push(part)
    }
  }
  const end = () => {
    number += 1
    if (skipping) {
      visit({ number, tooLong: true, bytes: pendingBytes })
    } else {
      const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes)
      visit({ number, text: bytes.toString('utf8'), utf8: isUtf8(bytes) })
    }
    pending = []
    pendingBytes = 0
    skipping = false
  }

  // The chunk's buffer is read into again two chunks on: an unfinished line at its end is copied out.
  for await (const chunk of readChunks(file, CHUNK_BYTES, { reuse: true })) {
    onChunk?.(chunk)
    let start = 0
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      take(chunk.subarray(start, newline))
      end()
      start = newline + 1
    }
    if (start < chunk.length) take(skipping ? chunk.subarray(start) : Buffer.from(chunk.subarray(start)))
  }
  if (pendingBytes > 0) end()
}
