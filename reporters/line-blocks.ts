import { readSync } from 'node:fs'

/** Reads are made in blocks of this many bytes. */
export const LINE_BLOCK_BYTES = 64 * 1024

/**
 * The lines of the file open as `fd` (each ending in a newline, none empty), read a block at a time with
 * positioned reads, so the file's own offset, where its writer appends, is left alone. Synchronous: the seal's
 * writers iterate inside their own synchronous JSON text. A last line without its newline is returned as `rest`.
 */
export function* linesOf(fd: number): Generator<string, string> {
  const block = Buffer.allocUnsafe(LINE_BLOCK_BYTES)
  let position = 0
  // Bytes after the last newline read so far, as latin1 (a char a byte): a block may end inside a character.
  let carry = ''
  for (;;) {
    const bytes = readSync(fd, block, 0, LINE_BLOCK_BYTES, position)
    if (bytes === 0) return carry === '' ? '' : Buffer.from(carry, 'latin1').toString('utf8')
    position += bytes
    const end = block.lastIndexOf(10, bytes - 1)
    if (end === -1) {
      carry += block.toString('latin1', 0, bytes)
      continue
    }
    const text =
      carry === ''
        ? block.toString('utf8', 0, end)
        : Buffer.concat([Buffer.from(carry, 'latin1'), block.subarray(0, end)]).toString('utf8')
    carry = block.toString('latin1', end + 1, bytes)
    yield* text.split('\n')
  }
}
