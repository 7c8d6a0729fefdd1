import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { measuredRun } from '../../bench/shared.mjs'

// A parent that starts a CPU-burning grandchild and waits for it, as Vitest waits for its workers. The grandchild
// writes down the CPU it used itself; the bench's figure for the whole tree must include it.
const burner = (report: string) =>
  [
    "const { writeFileSync } = require('node:fs')",
    'const t = process.hrtime.bigint(); let x = 0',
    'while (process.hrtime.bigint() - t < 400_000_000n) x += Math.sqrt(x + 1)',
    'const u = process.cpuUsage()',
    `writeFileSync(${JSON.stringify(report)}, String((u.user + u.system) / 1000))`,
  ].join('\n')
const parent = (report: string) =>
  [
    "const { spawn } = require('node:child_process')",
    `const child = spawn(process.execPath, ['-e', ${JSON.stringify(burner(report))}], { stdio: 'inherit' })`,
    "child.on('exit', (code) => process.exit(code ?? 1))",
  ].join('\n')

let dir = ''
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('measuredRun', () => {
  it('counts the CPU of the descendants the child waited for, not only its own', async () => {
    dir = mkdtempSync(join(tmpdir(), 'measured-run-'))
    const report = join(dir, 'grandchild-cpu')
    const result = await measuredRun([process.execPath, '-e', parent(report)], { cwd: dir })
    const grandchildMs = Number(readFileSync(report, 'utf8'))
    expect(grandchildMs).toBeGreaterThan(50)
    expect(result.unreaped).toBe(false)
    expect(result.peakMb).toBeGreaterThan(0)
    // kernel ticks are 10 ms; the grandchild's self-report is in µs: allow two ticks of rounding
    expect(result.cpuMs).toBeGreaterThanOrEqual(grandchildMs - 20)
  })
})
