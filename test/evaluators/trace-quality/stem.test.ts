import { describe, expect, it } from 'vitest'
import { stem } from '../../../src/evaluators/trace-quality/stem.ts'

describe('stem', () => {
  it("gives the stems of Porter's paper", () => {
    const cases: [string, string][] = [
      ['caresses', 'caress'],
      ['ponies', 'poni'],
      ['cats', 'cat'],
      ['agreed', 'agre'],
      ['plastered', 'plaster'],
      ['motoring', 'motor'],
      ['sing', 'sing'],
      ['conflated', 'conflat'],
      ['sized', 'size'],
      ['hopping', 'hop'],
      ['falling', 'fall'],
      ['filing', 'file'],
      ['happy', 'happi'],
      ['relational', 'relat'],
      ['generalizations', 'gener'],
      ['oscillators', 'oscil'],
      ['hopefulness', 'hope'],
      ['electrical', 'electr'],
      ['adjustment', 'adjust'],
      ['adoption', 'adopt'],
      ['controll', 'control'],
      ['roll', 'roll'],
    ]
    for (const [word, expected] of cases) expect(stem(word), word).toBe(expected)
  })

  it('brings spelling variants and derived forms to one stem', () => {
    for (const group of [
      ['cancelled', 'canceled', 'cancellation', 'cancels', 'cancel'],
      ['confirmed', 'confirmation', 'confirming'],
      ['organised', 'organized', 'organising'],
      ['analysed', 'analyzed'],
      ['café', 'cafe'],
    ]) {
      expect(new Set(group.map(stem)).size, group.join(', ')).toBe(1)
    }
  })

  it('leaves ids, numbers and short words as they are', () => {
    for (const word of ['hat030', '2024', 'w2378156', 'is', 'an']) expect(stem(word)).toBe(word)
  })
})
