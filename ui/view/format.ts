import type { Interval } from '../../src/view/api.ts'

/** Figures as the report shows them: `72.0 % [61.2, 81.0]`, `$0.1234`, `+2.0 pp`. A missing figure is a dash. */

const DASH = '—'
const MINUS = '−'

function finite(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}

/** `x.toFixed(digits)` with a real minus sign, and none on a value that rounds to zero. */
function fixed(x: number, digits: number): string {
  const text = Math.abs(x).toFixed(digits)
  return x < 0 && Number(text) !== 0 ? `${MINUS}${text}` : text
}

export function percent(ratio: number | null | undefined): string {
  return finite(ratio) ? `${fixed(ratio * 100, 1)} %` : DASH
}

/** `[61.2, 81.0]` in percent; a t interval is not clipped to [0, 1], so a bound may be negative. */
export function percentInterval(ci: Interval | null | undefined): string {
  if (!ci || !finite(ci.lower) || !finite(ci.upper)) return ''
  return `[${fixed(ci.lower * 100, 1)}, ${fixed(ci.upper * 100, 1)}]`
}

/** A pass rate with its interval: `72.0 % [61.2, 81.0]`. */
export function rateWithInterval(rate: number | null | undefined, ci: Interval | null | undefined): string {
  if (!finite(rate)) return DASH
  const interval = percentInterval(ci)
  return interval ? `${percent(rate)} ${interval}` : percent(rate)
}

export function usd(amount: number | null | undefined): string {
  return finite(amount) ? `$${amount.toFixed(4)}` : DASH
}

/** A change of a rate in percentage points, signed: `+2.0 pp`, `−12.5 pp`. */
export function points(delta: number | null | undefined): string {
  if (!finite(delta)) return DASH
  const rounded = (Math.abs(delta) * 100).toFixed(1)
  const sign = rounded === '0.0' ? '' : delta > 0 ? '+' : MINUS
  return `${sign}${rounded} pp`
}

/** `[−5.1, +1.2] pp`. */
export function pointsInterval(ci: Interval | null | undefined): string {
  if (!ci || !finite(ci.lower) || !finite(ci.upper)) return ''
  const bound = (x: number): string => points(x).replace(' pp', '')
  return `[${bound(ci.lower)}, ${bound(ci.upper)}] pp`
}

export function pValue(p: number | null | undefined): string {
  if (!finite(p)) return DASH
  return p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`
}

export function shortSha(sha: string | null, dirty: boolean | null): string {
  if (!sha) return DASH
  return dirty ? `${sha.slice(0, 7)}+dirty` : sha.slice(0, 7)
}

/** An ISO timestamp as `2026-12-02 07:46 UTC`; anything else as it came. */
export function when(iso: string | null): string {
  if (!iso) return DASH
  const t = Date.parse(iso)
  if (Number.isNaN(t)) return iso
  return `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

export function labelsText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')
}
