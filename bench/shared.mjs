// What the benchmark scripts share: timing a child run, the median, and taking a run's single bundle.
import { spawn } from 'node:child_process'
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { reapedChildrenCpuMs, treeCpuMs, treeRssKb } from './proc-tree.mjs'

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/**
 * Runs `argv` to its end and resolves with its wall time in ms; a non-zero exit rejects with the end of its output.
 * `onStart(child)` may watch it (RSS sampling); `timeoutMs` bounds it.
 */
export function timedRun(argv, { cwd, env, timeoutMs = 600_000, onStart = () => undefined }) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const stop = onStart(child) ?? (() => undefined)
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('exit', (code) => {
      stop()
      clearTimeout(killer)
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6
      if (code !== 0) reject(new Error(`${argv.slice(1).join(' ')} exited ${code}:\n${output.slice(-3000)}`))
      else resolve(wallMs)
    })
  })
}

/**
 * Runs `argv` to its end as the only child of this process and measures its whole process tree: wall (ms), CPU
 * (user+sys, ms) from the rusage of the reaped child, which includes the descendants it waited for (Vitest waits for
 * its workers), and peak RSS (MiB) sampled every `sampleMs`. The CPU sampled live from /proc is a lower bound of the
 * rusage; a tree that left descendants unreaped would show more there, so the larger of the two is taken and
 * `unreaped` says it happened.
 */
export async function measuredRun(argv, { cwd, env, timeoutMs, sampleMs = 25 }) {
  let peakKb = 0
  let sampledCpuMs = 0
  const before = reapedChildrenCpuMs()
  const wallMs = await timedRun(argv, {
    cwd,
    env,
    timeoutMs,
    onStart: (child) => {
      const sample = () => {
        peakKb = Math.max(peakKb, treeRssKb(child.pid))
        sampledCpuMs = Math.max(sampledCpuMs, treeCpuMs(child.pid))
      }
      const sampler = setInterval(sample, sampleMs)
      return () => clearInterval(sampler)
    },
  })
  const rusageCpuMs = reapedChildrenCpuMs() - before
  // two clock ticks of slack: the two readings round differently
  const unreaped = sampledCpuMs > rusageCpuMs + 20
  return {
    wallMs,
    cpuMs: Math.max(rusageCpuMs, sampledCpuMs),
    peakMb: peakKb / 1024,
    unreaped,
    rusageCpuMs,
    sampledCpuMs,
  }
}

/**
 * Medians of each side's rounds, and each side's ratios against `baseline` taken pair by pair (round i against the
 * baseline's round i, run back to back), then the median: steadier than a ratio of medians on a busy machine.
 * `results` maps a side's name to its rounds' `{ wallMs, cpuMs, peakMb }`.
 */
export function summarize(results, baseline) {
  const keys = ['wallMs', 'cpuMs', 'peakMb']
  return Object.fromEntries(
    Object.entries(results).map(([name, rounds]) => [
      name,
      {
        ...Object.fromEntries(keys.map((k) => [k, median(rounds.map((r) => r[k]))])),
        ratio: Object.fromEntries(
          keys.map((k) => [k, median(rounds.map((r, i) => r[k] / results[baseline][i][k]))]),
        ),
      },
    ]),
  )
}

/** The one bundle a run left in `runsDir`, read with `readBundle` and removed so the next run's is the only one. */
export async function takeBundle(runsDir, readBundle) {
  const dirs = readdirSync(runsDir).filter((d) => !d.startsWith('.'))
  if (dirs.length !== 1) throw new Error(`expected one bundle in ${runsDir}, found ${dirs.length}`)
  const bundle = await readBundle(join(runsDir, dirs[0]))
  rmSync(join(runsDir, dirs[0]), { recursive: true, force: true })
  return bundle
}
