#!/usr/bin/env node
// Pipeline benchmark: the full agentevalops path (engine, trace files, evaluator, policy, bundle) against plain
// Vitest doing the same number of concurrent cases with the same latency. Runs alternate in one invocation so both
// sides see the same machine state; medians are reported, as ratios against the baseline of this same run.
import { spawn } from 'node:child_process'
import { readFileSync, readdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, timedRun } from './shared.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const rounds = Number(process.env.AGENTEVALOPS_BENCH_ROUNDS ?? 5)
const vitestBin = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const SAMPLE_MS = 25
const TIMEOUT_MS = 300_000

/** Resident memory of a process and all its descendants (Vitest's workers are child processes). */
function treeRssKb(rootPid) {
  const children = new Map()
  const rss = new Map()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8')
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1])
      const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0)
      rss.set(Number(entry), kb)
      if (!children.has(ppid)) children.set(ppid, [])
      children.get(ppid).push(Number(entry))
    } catch {
      // the process ended while we looked
    }
  }
  let total = 0
  const stack = [rootPid]
  while (stack.length) {
    const pid = stack.pop()
    total += rss.get(pid) ?? 0
    stack.push(...(children.get(pid) ?? []))
  }
  return total
}

async function runOnce(config) {
  let peakKb = 0
  const wallMs = await timedRun([process.execPath, vitestBin, 'run', '--config', config], {
    cwd: root,
    env: { ...process.env, CI: 'true' },
    timeoutMs: TIMEOUT_MS,
    onStart: (child) => {
      const sampler = setInterval(() => (peakKb = Math.max(peakKb, treeRssKb(child.pid))), SAMPLE_MS)
      return () => clearInterval(sampler)
    },
  })
  return { wallMs, peakMb: peakKb / 1024 }
}

// The pipeline side runs the built package (dist/), so build it from the current sources first.
await new Promise((resolve, reject) => {
  const build = spawn(process.execPath, [join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  build.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build failed (${code})`))))
})

const work = join(root, 'bench', '.work')
rmSync(work, { recursive: true, force: true })
const plain = []
const pipeline = []
// One warm-up of each fills Vite's transform cache and the page cache, so round 1 is not an outlier.
await runOnce('bench/fixtures/plain.config.ts')
await runOnce('bench/fixtures/pipeline.config.ts')
for (let i = 0; i < rounds; i++) {
  plain.push(await runOnce('bench/fixtures/plain.config.ts'))
  pipeline.push(await runOnce('bench/fixtures/pipeline.config.ts'))
  process.stdout.write(
    `round ${i + 1}/${rounds}: plain ${plain[i].wallMs.toFixed(0)} ms ${plain[i].peakMb.toFixed(0)} MB · ` +
      `pipeline ${pipeline[i].wallMs.toFixed(0)} ms ${pipeline[i].peakMb.toFixed(0)} MB\n`,
  )
}
rmSync(work, { recursive: true, force: true })

const wallPlain = median(plain.map((r) => r.wallMs))
const wallPipe = median(pipeline.map((r) => r.wallMs))
const rssPlain = median(plain.map((r) => r.peakMb))
const rssPipe = median(pipeline.map((r) => r.peakMb))
console.log(
  `\npipeline benchmark: ${process.env.AGENTEVALOPS_BENCH_TASKS ?? 1000} tasks, 20 ms latency, concurrency 50, ${rounds} rounds`,
)
console.log(
  `wall time  median: plain ${wallPlain.toFixed(0)} ms, agentevalops ${wallPipe.toFixed(0)} ms, ratio ${(wallPipe / wallPlain).toFixed(3)} (target ≤ 1.10)`,
)
console.log(
  `peak RSS   median: plain ${rssPlain.toFixed(0)} MB, agentevalops ${rssPipe.toFixed(0)} MB, ratio ${(rssPipe / rssPlain).toFixed(3)} (target ≤ 1.30)`,
)
