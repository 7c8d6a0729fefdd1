#!/usr/bin/env node
// `npm run bench`: every benchmark in turn, each to its end whatever the others did. A bench that misses its target
// exits non-zero; that must not keep the later ones from running (a noisy ratio in one would hide every figure
// after it), so the misses are listed at the end and make this exit non-zero.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const BENCHES = [
  'run',
  'trace-quality',
  'replay',
  'validate',
  'humaneval',
  'html-report',
  'view',
  'view-live',
  'store',
  'parallel',
  'monitor',
]

const here = dirname(fileURLToPath(import.meta.url))
const failed = []
for (const name of BENCHES) {
  console.log(`\n== bench/${name}.mjs`)
  const { status, signal } = spawnSync(process.execPath, [join(here, `${name}.mjs`)], { stdio: 'inherit' })
  if (status !== 0) failed.push(`bench/${name}.mjs (${signal ?? `exit ${status}`})`)
}
if (failed.length > 0) {
  console.log(`\nnpm run bench: ${failed.length} of ${BENCHES.length} did not pass: ${failed.join(', ')}`)
  process.exitCode = 1
} else console.log(`\nnpm run bench: all ${BENCHES.length} ran and passed`)
