import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readTraceFile } from '../../src/stores/index.ts'

const EVENTS_PER_TRIAL = 6
const KILL_AFTER_DONE = 25

/**
 * A child process writing traces the way a run does: several trials at once, some appends awaited, some not.
 * It reports `durable <trial> <path> <count>` after each awaited append and `done <trial> <path>` after finalize.
 */
const DRIVER = `
import { JsonlTraceStore } from ${JSON.stringify(resolve(import.meta.dirname, '../../src/stores/index.ts'))}
const root = process.argv[2]
const store = new JsonlTraceStore(root)
const say = (line) => process.stdout.write(line + '\\n')
const event = (taskId, step) => ({
  runId: 'crash-run', taskId, trial: 0, step, ts: new Date().toISOString(), kind: 'agent.plan',
  payload: { text: 'x'.repeat(64 * (step + 1)) }, tokensDelta: step, costDeltaUsd: 0, spanId: '0123456789abcdef',
})
let next = 0
async function lane() {
  while (next < 10000) {
    const i = next++
    const writer = store.open({ taskId: 'crash/task ' + i, trial: 0 })
    const pending = []
    for (let step = 0; step < ${EVENTS_PER_TRIAL}; step++) {
      if (step % 2 === 0) {
        await writer.append(event('crash/task ' + i, step))
        say('durable ' + i + ' ' + writer.path + ' ' + (step + 1))
      } else {
        pending.push(writer.append(event('crash/task ' + i, step)))
      }
      await new Promise((r) => setImmediate(r))
    }
    await Promise.all(pending)
    await writer.finalize()
    say('done ' + i + ' ' + writer.path)
  }
}
await Promise.all([lane(), lane(), lane(), lane()])
`

let work: string

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'aeo-crash-'))
})

afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

interface Report {
  done: Map<number, string>
  durable: Map<number, { path: string; count: number }>
  exit: { code: number | null; signal: NodeJS.Signals | null }
}

/** Runs the driver until enough trials are done, then SIGKILLs it; always reaps the child. */
async function runAndKill(script: string, root: string): Promise<Report> {
  const done = new Map<number, string>()
  const durable = new Map<number, { path: string; count: number }>()
  let child: ChildProcess | undefined
  try {
    child = spawn(process.execPath, [script, root], { stdio: ['ignore', 'pipe', 'pipe'] })
    const proc = child
    let stderr = ''
    proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = new Promise<Report['exit']>((res) =>
      proc.on('close', (code, signal) => res({ code, signal })),
    )
    let buffer = ''
    proc.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      const lines = buffer.split('\n')
      buffer = lines.pop() ?? ''
      for (const line of lines) {
        const [what, trial, path, count] = line.split(' ')
        if (what === 'done' && path) done.set(Number(trial), path)
        if (what === 'durable' && path) durable.set(Number(trial), { path, count: Number(count) })
      }
      if (done.size >= KILL_AFTER_DONE && proc.exitCode === null && proc.signalCode === null)
        proc.kill('SIGKILL')
    })
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error(`driver did not finish ${KILL_AFTER_DONE} trials in time: ${stderr}`)),
        20_000,
      ),
    )
    const exit = await Promise.race([exited, timeout])
    return { done, durable, exit }
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
}

describe('JsonlTraceStore under SIGKILL', () => {
  it('leaves every finished trial complete and parseable, and unfinished ones at worst with a cut tail', async () => {
    const script = join(work, 'driver.mjs')
    await build({
      stdin: { contents: DRIVER, loader: 'ts', resolveDir: import.meta.dirname },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: script,
      logLevel: 'silent',
    })
    const root = join(work, 'traces')
    const { done, durable, exit } = await runAndKill(script, root)

    expect(exit.signal).toBe('SIGKILL')
    expect(done.size).toBeGreaterThanOrEqual(KILL_AFTER_DONE)

    for (const [trial, path] of done) {
      const { events, truncatedTail } = await readTraceFile(join(root, path))
      expect(truncatedTail).toBe(false)
      expect(events.map((e) => e.step)).toEqual([0, 1, 2, 3, 4, 5])
      expect(events.every((e) => e.taskId === `crash/task ${trial}`)).toBe(true)
    }

    const unfinished = (await readdir(root)).filter((name) => ![...done.values()].includes(name))
    for (const name of unfinished) {
      const { events } = await readTraceFile(join(root, name), { tolerateTruncatedTail: true })
      expect(events.length).toBeLessThanOrEqual(EVENTS_PER_TRIAL)
      expect(events.map((e) => e.step)).toEqual(events.map((_, i) => i))
    }
    // What an awaited append confirmed must have survived the kill.
    for (const [trial, { path, count }] of durable) {
      if (done.has(trial)) continue
      const { events } = await readTraceFile(join(root, path), { tolerateTruncatedTail: true })
      expect(events.length).toBeGreaterThanOrEqual(count)
    }
  })
})
