#!/usr/bin/env node
// Span-building benchmark: spans.jsonl for runs of 1,000 and 10,000 trials (7 trace events and 5 measured phases
// each), built by OpenTelemetry's SDK and its JSON serializer (the path before issue 19, kept as the test reference)
// and by the direct OTLP JSON writer. Each side runs in a fresh process: its import time is measured cold, then
// the whole file is built AGENTEVALOPS_BENCH_ROUNDS times (default 5); first and median builds are printed.
// Bundles the TypeScript sources with esbuild into bench/.work/spans/ first. Not a test: nothing here is asserted.
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const rounds = process.env.AGENTEVALOPS_BENCH_ROUNDS ?? '5'
const sizes = (process.env.AGENTEVALOPS_BENCH_SPAN_TRIALS ?? '1000,10000').split(',')
const outdir = join(root, 'bench/.work/spans')

await build({
  entryPoints: [join(root, 'bench/fixtures/span-lines.entry.ts')],
  bundle: true,
  // Lazily imported modules in chunks of their own: the side not run is not loaded.
  splitting: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  outdir,
  logLevel: 'warning',
})

const runSide = (impl) =>
  JSON.parse(
    execFileSync(process.execPath, [join(outdir, 'span-lines.entry.js'), impl, rounds, ...sizes], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    }),
  )

const sides = [runSide('sdk'), runSide('direct')]
const ms = (x) => `${x.toFixed(1)} ms`
// CPU time is printed beside wall time: on a shared machine, waiting for a core inflates only the wall clock.
console.log(`span building, ${rounds} rounds per size (first / median; wall, then CPU):`)
for (const side of sides) console.log(`  ${side.impl.padEnd(6)} import ${ms(side.importMs)}`)
for (const [i, n] of sizes.entries()) {
  const [sdk, direct] = sides.map((s) => s.results[i])
  console.log(
    `  ${n} trials, ${(direct.bytes / 1e6).toFixed(1)} MB (sdk ${(sdk.bytes / 1e6).toFixed(1)} MB):`,
  )
  for (const [name, r] of [
    ['sdk', sdk],
    ['direct', direct],
  ]) {
    console.log(
      `    ${name.padEnd(6)} wall ${ms(r.firstMs)} / ${ms(r.medianMs)}, cpu ${ms(r.firstCpuMs)} / ${ms(r.medianCpuMs)}, ` +
        `${((r.medianCpuMs * 1000) / n).toFixed(0)} µs CPU per trial`,
    )
  }
  console.log(`    median CPU ratio sdk/direct ${(sdk.medianCpuMs / direct.medianCpuMs).toFixed(1)}×`)
}
