#!/usr/bin/env node
// The HumanEval checks alone, for bench/humaneval.mjs: the given check programs through `executeCheck` (the
// grader's own path: temp folder, compile server, fork server) at 8 in flight, from a cold start of the Python
// servers. Prints the wall time in ms as JSON; exits 1 if a check did not pass.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const [distIndex, programsDir] = process.argv.slice(2)
const { executeCheck, resolvePython } = await import(distIndex)
const programs = readdirSync(programsDir)
  .sort()
  .map((f) => readFileSync(join(programsDir, f), 'utf8'))
const python = await resolvePython('python3')
const started = performance.now()
let next = 0
let failed = 0
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < programs.length) {
      const program = programs[next++]
      const check = await executeCheck({ python, program, timeoutSeconds: 10, memoryBytes: 1 << 30 })
      if (check.status !== 'passed') failed++
    }
  }),
)
console.log(JSON.stringify({ ms: performance.now() - started, failed }))
// The Python servers end with their stdin, which closes with this process.
process.exit(failed === 0 ? 0 : 1)
