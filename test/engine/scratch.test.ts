import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isProcessAlive, removeStale, scratchRoot } from '../../src/engine/index.ts'

let base: string
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'aeo-scratch-'))
})
afterAll(() => rm(base, { recursive: true, force: true }))

/** A process that has exited but whose parent never reaps it: what a killed run's orphaned workers may look like. */
async function zombie(): Promise<{ pid: number; stop(): void }> {
  const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const pid = await new Promise<number>((resolve) =>
    parent.stdout.once('data', (d: Buffer) => resolve(Number(d))),
  )
  for (let i = 0; i < 100 && isProcessAlive(pid); i++) await new Promise((r) => setTimeout(r, 20))
  return { pid, stop: () => parent.kill('SIGKILL') }
}

describe('scratchRoot', () => {
  it('gives this process a folder of its own, once', async () => {
    const root = await scratchRoot('t1', base)
    expect(root).toBe(join(base, 'agentevalops-t1', String(process.pid)))
    expect(await scratchRoot('t1', base)).toBe(root)
    expect(existsSync(root)).toBe(true)
  })

  it('removes the folders of processes that are gone or zombies, and keeps the live ones', async () => {
    const parent = join(base, 'agentevalops-t2')
    const dead = spawn('true')
    await new Promise((r) => dead.once('exit', r))
    const z = await zombie()
    try {
      for (const pid of [dead.pid!, z.pid, process.ppid])
        await mkdir(join(parent, String(pid), 'x'), { recursive: true })
      await mkdir(join(parent, 'not-a-pid'), { recursive: true })
      expect(isProcessAlive(z.pid)).toBe(false)
      expect((await removeStale(parent)).sort()).toEqual([dead.pid!, z.pid].sort())
      expect(existsSync(join(parent, String(process.ppid)))).toBe(true)
      expect(existsSync(join(parent, 'not-a-pid'))).toBe(true)
    } finally {
      z.stop()
    }
  })

  it('counts a live process as alive', () => {
    expect(isProcessAlive(process.pid)).toBe(true)
    expect(isProcessAlive(process.ppid)).toBe(true)
  })
})
