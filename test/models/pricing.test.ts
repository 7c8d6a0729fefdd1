import { describe, expect, it } from 'vitest'
import { costOf, MODEL_PRICES, PRICES_AS_OF, priceOf } from '../../src/models/index.ts'

describe('price table', () => {
  it('is dated, and lists the current Claude families with all four prices', () => {
    expect(PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(Number.isNaN(Date.parse(PRICES_AS_OF))).toBe(false)
    const claude = Object.keys(MODEL_PRICES).filter((id) => id.startsWith('claude-'))
    expect(claude.sort()).toEqual(
      [
        'claude-opus-4-6',
        'claude-opus-4-5',
        'claude-sonnet-4-6',
        'claude-opus-4-1',
        'claude-opus-4',
        'claude-sonnet-4-5',
        'claude-sonnet-4',
        'claude-3-7-sonnet',
        'claude-haiku-4-5',
        'claude-3-5-haiku',
      ].sort(),
    )
    for (const id of claude) {
      const price = MODEL_PRICES[id]!
      // Cache writes cost more than plain input, cache reads far less: a typo in the table breaks this.
      expect(price.cacheWrite).toBeGreaterThan(price.input)
      expect(price.cacheRead).toBeLessThan(price.input)
      expect(price.output).toBeGreaterThan(price.input)
    }
  })

  it("lists OpenAI's current chat models, cached input cheaper than input and no cache-write surcharge", () => {
    const openai = Object.keys(MODEL_PRICES).filter((id) => !id.startsWith('claude-'))
    expect(openai).toEqual(
      expect.arrayContaining(['gpt-5', 'gpt-5-mini', 'gpt-4.1', 'gpt-4o', 'gpt-4o-mini', 'o3']),
    )
    for (const id of openai) {
      const price = MODEL_PRICES[id]!
      expect(id).toMatch(/^(gpt-|o\d)/)
      expect(price.cacheWrite).toBe(price.input)
      expect(price.cacheRead).toBeLessThan(price.input)
      expect(price.output).toBeGreaterThan(price.input)
    }
  })

  it('prices OpenAI ids and their dated snapshots, never a sibling model by prefix', () => {
    // gpt-4o: $2.50 in, $10 out, $1.25 cached input per million tokens.
    const usage = { input_tokens: 1e6, output_tokens: 1e5, cache_read_input_tokens: 2e5 }
    expect(costOf('gpt-4o', usage)).toBeCloseTo(2.5 + 1 + 0.25, 12)
    expect(costOf('gpt-4o-2024-08-06', usage)).toBe(costOf('gpt-4o', usage))
    expect(priceOf('gpt-4o-mini-2024-07-18')).toEqual(MODEL_PRICES['gpt-4o-mini'])
    expect(priceOf('gpt-5-mini')).toEqual(MODEL_PRICES['gpt-5-mini'])
    expect(priceOf('gpt-5-mini')).not.toEqual(MODEL_PRICES['gpt-5'])
    expect(priceOf('gpt-4o-audio-preview')).toBeNull()
    expect(priceOf('gpt-4o-2024')).toBeNull()
  })
})

describe('costOf', () => {
  it('prices input, output, cache writes and cache reads separately (hand-computed)', () => {
    // claude-sonnet-4-5: $3 in, $15 out, $3.75 cache write, $0.30 cache read per million tokens.
    // 1000·3 + 500·15 + 2000·3.75 + 10000·0.30 = 3000 + 7500 + 7500 + 3000 = 21000 µ$ = $0.021
    const usage = {
      input_tokens: 1000,
      output_tokens: 500,
      cache_creation_input_tokens: 2000,
      cache_read_input_tokens: 10_000,
    }
    expect(costOf('claude-sonnet-4-5', usage)).toBeCloseTo(0.021, 12)
    // claude-haiku-4-5: a million in and a million out = $1 + $5.
    expect(costOf('claude-haiku-4-5', { input_tokens: 1e6, output_tokens: 1e6 })).toBe(6)
    // claude-opus-4-1: 200 in, 100 out = 200·15 + 100·75 = 10500 µ$.
    expect(costOf('claude-opus-4-1', { input_tokens: 200, output_tokens: 100 })).toBeCloseTo(0.0105, 12)
  })

  it('treats absent or null cache counts as zero', () => {
    const usage = { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: null }
    expect(costOf('claude-3-5-haiku', usage)).toBeCloseTo((100 * 0.8 + 10 * 4) / 1e6, 12)
  })

  it('maps dated snapshot ids and -latest to their family', () => {
    const usage = { input_tokens: 1e6, output_tokens: 0 }
    expect(costOf('claude-sonnet-4-20250514', usage)).toBe(3)
    expect(costOf('claude-sonnet-4-5-20250929', usage)).toBe(3)
    expect(costOf('claude-opus-4-1-20250805', usage)).toBe(15)
    expect(costOf('claude-opus-4-20250514', usage)).toBe(15)
    expect(costOf('claude-3-5-haiku-20241022', usage)).toBe(0.8)
    expect(costOf('claude-haiku-4-5-20251001', usage)).toBe(1)
    expect(costOf('claude-3-7-sonnet-latest', usage)).toBe(3)
    expect(priceOf('Claude-Sonnet-4-5')).toEqual(MODEL_PRICES['claude-sonnet-4-5'])
  })

  it('returns null for a model it does not know, never a neighbour’s price', () => {
    const usage = { input_tokens: 1, output_tokens: 1 }
    // A prefix of a known family is not that family: claude-opus-4-7 is not priced as claude-opus-4.
    expect(costOf('claude-opus-4-7', usage)).toBeNull()
    expect(costOf('claude-sonnet-5', usage)).toBeNull()
    expect(priceOf('claude-opus-4-5-20251101')?.input).toBe(5)
    expect(costOf('claude-sonnet-4-5x', usage)).toBeNull()
    expect(costOf('claude-sonnet-4-2025', usage)).toBeNull()
    expect(costOf('gpt-4o-turbo', usage)).toBeNull()
    expect(costOf('', usage)).toBeNull()
    expect(priceOf('claude-fake')).toBeNull()
  })

  it('hands out copies, so a caller cannot change the table', () => {
    const price = priceOf('claude-sonnet-4')!
    price.input = 0
    expect(priceOf('claude-sonnet-4')!.input).toBe(3)
  })
})
