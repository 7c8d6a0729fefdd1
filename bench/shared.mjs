// What the benchmark scripts share: timing a child run, the median, and taking a run's single bundle.
import { spawn } from 'node:child_process'
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'

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

/** The one bundle a run left in `runsDir`, read with `readBundle` and removed so the next run's is the only one. */
export async function takeBundle(runsDir, readBundle) {
  const dirs = readdirSync(runsDir).filter((d) => !d.startsWith('.'))
  if (dirs.length !== 1) throw new Error(`expected one bundle in ${runsDir}, found ${dirs.length}`)
  const bundle = await readBundle(join(runsDir, dirs[0]))
  rmSync(join(runsDir, dirs[0]), { recursive: true, force: true })
  return bundle
}
