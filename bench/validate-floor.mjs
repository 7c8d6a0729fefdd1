#!/usr/bin/env node
// The floor under `validate-bundle` (bench/validate.mjs runs it beside the validator, on the same bundle): what any
// reader that checksums and parses the bundle's JSONL files must do at least, and nothing else. Each of
// traces.jsonl and spans.jsonl is read in 256 KiB chunks, hashed with SHA-256, split into lines, each line decoded
// from UTF-8 and handed to JSON.parse. No schema, no cross-file check, no finding. Usage: validate-floor.mjs <dir>
import { createHash } from 'node:crypto'
import { closeSync, openSync, readSync } from 'node:fs'
import { join } from 'node:path'

const CHUNK = 256 * 1024
let lines = 0
for (const file of ['traces.jsonl', 'spans.jsonl']) {
  const fd = openSync(join(process.argv[2], file), 'r')
  const hash = createHash('sha256')
  let pending = []
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK)
      const n = readSync(fd, chunk, 0, CHUNK, null)
      if (n === 0) break
      const bytes = chunk.subarray(0, n)
      hash.update(bytes)
      let start = 0
      for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
        const part = bytes.subarray(start, nl)
        const line = pending.length > 0 ? Buffer.concat([...pending, part]) : part
        pending = []
        JSON.parse(line.toString('utf8'))
        lines += 1
        start = nl + 1
      }
      if (start < bytes.length) pending.push(bytes.subarray(start))
    }
  } finally {
    closeSync(fd)
  }
  hash.digest('hex')
}
console.log(`floor: ${lines} lines`)
