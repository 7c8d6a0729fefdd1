import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { commandEnv, MAX_TAIL_BYTES, runCommand } from '../../src/engine/run-command.ts'
import { liveGroupMembers } from '../support/process-group.ts'

/** Waits (at most ~2 s) for the group to die: SIGKILL is delivered asynchronously. */
async function groupGone(pgid: number): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    if ((await liveGroupMembers(pgid)).length === 0) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return false
}

let cwd: string

beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'aeo-cmd-'))
})

afterEach(async () => {
  await rm(cwd, { recursive: true, force: true })
})

describe('liveGroupMembers (the probe the other tests rely on)', () => {
  it('sees a live process group, and stops seeing it once killed', async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' })
    const pid = child.pid!
    try {
      expect(await liveGroupMembers(pid)).toContain(pid)
    } finally {
      process.kill(-pid, 'SIGKILL')
    }
    expect(await groupGone(pid)).toBe(true)
  })
})

describe('runCommand', () => {
  it('runs argv without a shell in cwd and reports the exit code and output', async () => {
    const r = await runCommand(['sh', '-c', 'pwd; echo oops >&2; exit 3'], { cwd, timeoutMs: 10_000 })
    expect(r).toMatchObject({ outcome: 'exited', exitCode: 3, signal: null })
    expect(r.stdoutTail.trim().endsWith(cwd.split('/').at(-1)!)).toBe(true)
    expect(r.stderrTail).toBe('oops\n')
  })

  it('writes stdin when given and closes it; without it, stdin is empty', async () => {
    const fed = await runCommand(['sh', '-c', 'read a; read b || echo "[$a|$b]"'], {
      cwd,
      timeoutMs: 10_000,
      stdin: 'one\n',
    })
    expect(fed.stdoutTail).toBe('[one|]\n')
    const none = await runCommand(['sh', '-c', 'cat; echo end'], { cwd, timeoutMs: 10_000 })
    expect(none.stdoutTail).toBe('end\n')
    // A command that never reads a large input does not make the call fail.
    const ignored = await runCommand(['true'], { cwd, timeoutMs: 10_000, stdin: 'x'.repeat(1 << 20) })
    expect(ignored).toMatchObject({ outcome: 'exited', exitCode: 0 })
  })

  it('does not interpret shell syntax in argv', async () => {
    const r = await runCommand(['echo', '$HOME', '&&', 'false'], { cwd, timeoutMs: 10_000 })
    expect(r).toMatchObject({ outcome: 'exited', exitCode: 0, stdoutTail: '$HOME && false\n' })
  })

  it('kills the whole process group on timeout, within a bounded time', async () => {
    const started = Date.now()
    const r = await runCommand(['sh', '-c', 'sleep 30 & sleep 30'], { cwd, timeoutMs: 300 })
    expect(r.outcome).toBe('timeout')
    expect(r.pid).toBeTypeOf('number')
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(await groupGone(r.pid!)).toBe(true)
  })

  it('kills what an exited command left running, and does not wait for it', async () => {
    const started = Date.now()
    const r = await runCommand(['sh', '-c', 'sleep 30 & echo started'], { cwd, timeoutMs: 20_000 })
    expect(r).toMatchObject({ outcome: 'exited', exitCode: 0, stdoutTail: 'started\n' })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(await groupGone(r.pid!)).toBe(true)
  })

  it('kills the group when the signal aborts', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 200)
    const r = await runCommand(['sh', '-c', 'sleep 30 & sleep 30'], {
      cwd,
      timeoutMs: 20_000,
      signal: controller.signal,
    })
    expect(r.outcome).toBe('aborted')
    expect(await groupGone(r.pid!)).toBe(true)
  })

  it('does not start when already aborted', async () => {
    const r = await runCommand(['sleep', '30'], { cwd, timeoutMs: 20_000, signal: AbortSignal.abort() })
    expect(r).toMatchObject({ outcome: 'aborted', pid: undefined })
  })

  it('reports a missing program as failed_to_start with ENOENT', async () => {
    const r = await runCommand(['definitely-not-a-program-aeo'], { cwd, timeoutMs: 10_000 })
    expect(r.outcome).toBe('failed_to_start')
    expect(r.error).toContain('ENOENT')
  })

  it('keeps only the last MAX_TAIL_BYTES of a long output', async () => {
    const script = `process.stderr.write('x'.repeat(${3 * MAX_TAIL_BYTES}) + 'THE END')`
    const r = await runCommand([process.execPath, '-e', script], { cwd, timeoutMs: 20_000 })
    expect(r.outcome).toBe('exited')
    expect(r.stderrBytes).toBe(3 * MAX_TAIL_BYTES + 7)
    expect(Buffer.byteLength(r.stderrTail)).toBe(MAX_TAIL_BYTES)
    expect(r.stderrTail.endsWith('xTHE END')).toBe(true)
  })

  it('drops a multi-byte character split by the cut', async () => {
    // 3-byte characters: a 64 KiB cut cannot fall on a boundary of all of them.
    const script = `process.stdout.write('€'.repeat(${MAX_TAIL_BYTES}))`
    const r = await runCommand([process.execPath, '-e', script], { cwd, timeoutMs: 20_000 })
    expect(r.stdoutTail).toMatch(/^€+$/)
  })

  it('passes down only PATH, HOME, LANG and TMPDIR', async () => {
    process.env.AEO_TEST_SECRET = 's3cret-value'
    try {
      const r = await runCommand(['env'], { cwd, timeoutMs: 10_000 })
      const names = r.stdoutTail
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => l.slice(0, l.indexOf('=')))
      expect(r.stdoutTail).not.toContain('s3cret-value')
      expect(names.every((n) => ['PATH', 'HOME', 'LANG', 'TMPDIR'].includes(n))).toBe(true)
      expect(names).toContain('PATH')
    } finally {
      delete process.env.AEO_TEST_SECRET
    }
  })

  it('commandEnv copies only the allowed variables that are set', () => {
    expect(commandEnv({ PATH: '/bin', SECRET: 'x', LANG: 'C', AWS_SECRET_ACCESS_KEY: 'y' })).toEqual({
      PATH: '/bin',
      LANG: 'C',
    })
  })
})
