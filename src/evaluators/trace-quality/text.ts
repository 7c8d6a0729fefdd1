import type { JsonValue } from '../../core/index.ts'

const WORD = /[\p{L}\p{N}]+/gu
/**
 * A number as people write it: -3, 1,234, 72.5. Not when glued to a word or another number (v2, H2O, the 5 in
 * 3.5), so "2024-05-01" reads as 2024, 05, 01 on both sides of a comparison.
 */
const NUMBER = /(?<![\p{L}\p{N}_.])-?\d+(?:,\d{3})*(?:\.\d+)?/gu

/** Lower-case words of at least `minLength` letters or digits: short words are too common to link two texts. */
export function words(text: string, minLength = 4): string[] {
  const out: string[] = []
  for (const [w] of text.matchAll(WORD)) if (w.length >= minLength) out.push(w.toLowerCase())
  return out
}

const valueOf = (written: string) => Number(written.replaceAll(',', ''))

export function numbersIn(text: string): number[] {
  const out: number[] = []
  for (const [n] of text.matchAll(NUMBER)) {
    const value = valueOf(n)
    if (Number.isFinite(value)) out.push(value)
  }
  return out
}

const NUMBER_OR_PERCENT = new RegExp(`${NUMBER.source}(?:\\s?%)?`, 'gu')

/** A number a text states, as written, and the values it may stand for. */
export interface StatedNumber {
  text: string
  values: number[]
}

/** Numbers as a text states them: "50%" may stand for 50 or for 0.5 (a rate a tool returned as a fraction). */
export function statedNumbers(text: string): StatedNumber[] {
  const out: StatedNumber[] = []
  for (const [written] of text.matchAll(NUMBER_OR_PERCENT)) {
    const percent = written.endsWith('%')
    const value = valueOf(percent ? written.slice(0, -1).trim() : written)
    if (Number.isFinite(value)) out.push({ text: written, values: percent ? [value, value / 100] : [value] })
  }
  return out
}

/**
 * The values a number may be quoted as: itself and rounded to 0, 1 or 2 decimals, so a tool's 18.44 grounds an
 * answer's "18" or "18.4".
 */
export function roundings(n: number): number[] {
  return [n, Math.round(n), Math.round(n * 10) / 10, Math.round(n * 100) / 100]
}

/**
 * Visits the strings and numbers of a JSON value (booleans as "true"/"false"), in no particular order. `onArray`
 * sees each array's length: "search returned 3 results" is grounded in a 3-item list; `onKey` each key, with its value.
 */
export function walkJson(
  value: JsonValue,
  visit: {
    onString(s: string): void
    onNumber(n: number): void
    onKey?(k: string, value: JsonValue): void
    onArray?(n: number): void
  },
): void {
  const stack: JsonValue[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()!
    if (typeof v === 'string') visit.onString(v)
    else if (typeof v === 'number') visit.onNumber(v)
    else if (typeof v === 'boolean') visit.onString(String(v))
    else if (Array.isArray(v)) {
      visit.onArray?.(v.length)
      for (const item of v) stack.push(item)
    } else if (v !== null) {
      for (const [k, item] of Object.entries(v)) {
        visit.onKey?.(k, item)
        stack.push(item)
      }
    }
  }
}
