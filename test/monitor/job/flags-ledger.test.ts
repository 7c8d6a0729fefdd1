// The monitor job's small parts: flag values, deterministic sampling and the ledger file.
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  openLedger,
  parseDurationFlag,
  parseTimeFlag,
  sampledIn,
  samplingPoint,
} from '../../../src/monitor/index.ts'

const temps: string[] = []
afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true })
})

describe('flag values', () => {
  it('times need a time zone; durations a unit', () => {
    expect(parseTimeFlag('--trace-start', '2026-01-31T00:00:00+02:00').toISOString()).toBe(
      '2026-01-30T22:00:00.000Z',
    )
    expect(() => parseTimeFlag('--trace-start', '2026-01-31')).toThrow(/^--trace-start: "2026-01-31" is not/)
    expect(() => parseTimeFlag('--trace-end', '2026-02-30T00:00:00Z')).toThrow(/^--trace-end: /)
    expect(parseDurationFlag('--settle', '2m')).toBe(120_000)
    expect(parseDurationFlag('--grace', '1.5s')).toBe(1500)
    expect(parseDurationFlag('--settle', '0')).toBe(0)
    expect(() => parseDurationFlag('--settle', '120')).toThrow(/^--settle: "120" is not a duration/)
  })
})

describe('sampling', () => {
  it('is a pure function of the trace id, spread over [0, 1)', () => {
    const points = Array.from({ length: 2000 }, (_, i) => samplingPoint(`t-${i}`))
    expect(points.every((p) => p >= 0 && p < 1)).toBe(true)
    expect(samplingPoint('t-7')).toBe(points[7])
    const share = points.filter((p) => p < 0.3).length / points.length
    expect(share).toBeGreaterThan(0.25)
    expect(share).toBeLessThan(0.35)
    expect(sampledIn('t-1', 0)).toBe(false)
    expect(sampledIn('t-1', 1)).toBe(true)
  })
})

describe('the ledger', () => {
  it('keeps traces by monitor and evaluators, survives a torn line, appends only what is new', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aeo-ledger-'))
    temps.push(dir)
    const path = join(dir, 'ledger.jsonl')
    const key = { monitorId: 'mon-1', evaluatorsKey: 'k1' }
    const ledger = await openLedger(path, key, () => {})
    await ledger.record(['a', 'b'], 'run-1')
    await ledger.record(['b', 'c'], 'run-2')
    expect((await readFile(path, 'utf8')).trim().split('\n')).toHaveLength(3)
    const other = await openLedger(path, { monitorId: 'mon-1', evaluatorsKey: 'k2' }, () => {})
    await other.record(['a'], 'run-3')
    // A crash mid-append leaves half a line; the next read skips it with a warning and keeps the rest.
    await appendFile(path, '{"v":1,"monitorId":"mon-1","evalu')
    const warnings: string[] = []
    const again = await openLedger(path, key, (w) => void warnings.push(w))
    expect(['a', 'b', 'c', 'd'].map((id) => again.has(id))).toEqual([true, true, true, false])
    expect(again.size).toBe(3)
    expect(warnings).toEqual([`ledger ${path}:5: not a ledger line; skipped (its trace may be scored again)`])
  })

  it('a ledger that cannot be read is an error naming it, never an empty ledger', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aeo-ledger-'))
    temps.push(dir)
    await writeFile(join(dir, 'x'), '')
    await expect(openLedger(dir, { monitorId: 'm', evaluatorsKey: 'k' }, () => {})).rejects.toThrow(
      /cannot read the ledger/,
    )
  })
})
