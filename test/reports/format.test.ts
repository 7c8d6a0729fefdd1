import { describe, expect, it } from 'vitest'
import {
  capped,
  decimalInterval,
  integer,
  percent,
  percentInterval,
  points,
  pointsInterval,
  pValue,
  usd,
} from '../../src/reports/format.ts'

describe('report number formats', () => {
  it('shows undefined figures as a dash, never NaN or null', () => {
    for (const format of [percent, usd, points, pValue]) {
      expect(format(null)).toBe('—')
      expect(format(NaN)).toBe('—')
      expect(format(undefined)).toBe('—')
    }
    expect(percentInterval(null)).toBe('—')
    expect(percentInterval({ lower: NaN, upper: 1 })).toBe('—')
    expect(pointsInterval(null)).toBe('—')
  })

  it('writes intervals with an en dash, or "to" when a bound is negative', () => {
    expect(percentInterval({ lower: 0.8943, upper: 0.9964 })).toBe('89.4–99.6%')
    expect(percentInterval({ lower: -0.0504, upper: 1.3837 })).toBe('−5.0% to 138.4%')
    expect(decimalInterval({ lower: 0.1234, upper: 0.9 })).toBe('0.123–0.900')
    expect(decimalInterval({ lower: -0.00001, upper: 0.5 })).toBe('0.000–0.500')
  })

  it('signs changes in percentage points, and gives p-values 3 significant digits', () => {
    expect(points(0.02)).toBe('+2.0 pp')
    expect(points(-0.125)).toBe('−12.5 pp')
    expect(points(0.00001)).toBe('0.0 pp')
    expect(pointsInterval({ lower: -0.0512, upper: 0.0123 })).toBe('[−5.1, +1.2] pp')
    expect(pValue(0.001953125)).toBe('0.00195')
    expect(pValue(1)).toBe('1.00')
    expect(pValue(0.04567)).toBe('0.0457')
  })

  it('caps a list of names', () => {
    expect(capped(['a', 'b', 'c'], 5)).toBe('a, b, c')
    expect(capped(['a', 'b', 'c'], 2)).toBe('a, b … and 1 more')
  })
})

describe('integer', () => {
  it("writes every integer as toLocaleString('en-US') does: separators, signs, negative zero, huge values", () => {
    const values = [
      0, -0, 0.4, -0.4, 1, 7.5, 999, 999.5, 1000, 1234, -1, -999, -1000, -1234.6, 1e6, 123456789,
    ]
    values.push(2 ** 53, 1e21 - 65536, 1e21, -1e22, Number.MAX_VALUE, -Number.MAX_VALUE, -0.2, 1e20)
    for (let i = 0; i < 200; i++) values.push(Math.floor(Math.sin(i + 1) * 10 ** (i % 12)))
    for (let e = 15; e < 40; e++) values.push(1.2345678901234567 * 10 ** e, -(7 * 10 ** e))
    for (const v of values) expect(integer(v)).toBe(Math.round(v).toLocaleString('en-US'))
    expect(integer(Number.NaN)).toBe('—')
    expect(integer(Infinity)).toBe('—')
    expect(integer(null)).toBe('—')
  })
})
