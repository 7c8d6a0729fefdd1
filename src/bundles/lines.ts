import { createReadStream } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'

/**
 * Streams a file line by line, handing every raw chunk to `onChunk` as well, so a caller can checksum a large
 * JSONL file and parse it in one read. The final line needs no trailing newline.
 */
export async function* readLines(path: string, onChunk?: (chunk: Buffer) => void): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8')
  let pending = ''
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 16 }) as AsyncIterable<Buffer>) {
    onChunk?.(chunk)
    pending += decoder.write(chunk)
    let start = 0
    let newline = pending.indexOf('\n', start)
    while (newline !== -1) {
      yield pending.slice(start, newline)
      start = newline + 1
      newline = pending.indexOf('\n', start)
    }
    pending = pending.slice(start)
  }
  pending += decoder.end()
  if (pending.length > 0) yield pending
}
