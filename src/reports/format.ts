/** Number formats shared by the renderers, so the markdown report and the console summary show the same figures. */

import type { ErrorPolicy, Interval, SummarySettings } from '../core/index.ts'

const DASH = '—'
const MINUS = '−'

/** A figure that may be undefined (null), or not a number at all: either way it shows as a dash. */
type Figure = number | null | undefined

function finite(value: Figure): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}

export function percent(ratio: Figure): string {
  return finite(ratio) ? `${(ratio * 100).toFixed(1)}%` : DASH
}

export function usd(amount: Figure): string {
  return finite(amount) ? `$${amount.toFixed(4)}` : DASH
}

export function seconds(value: Figure): string {
  return finite(value) ? value.toFixed(2) : DASH
}

export function decimal(value: Figure, digits = 3): string {
  return finite(value) ? value.toFixed(digits) : DASH
}

/**
 * An integer as toLocaleString('en-US') writes it (digits in groups of three, a hyphen for a minus), without Intl:
 * the first NumberFormat a process makes loads the locale data, some 20 ms of every run's start.
 */
export function integer(value: Figure): string {
  if (!finite(value)) return DASH
  const n = Math.round(value)
  const negative = n < 0 || Object.is(n, -0)
  const digits = plainDigits(Math.abs(n))
  if (!negative && digits.length <= 3) return digits
  const head = digits.length % 3 || 3
  let out = digits.slice(0, head)
  for (let i = head; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`
  return negative ? `-${out}` : out
}

/**
 * A non-negative integer's digits: String() writes one from 1e21 up in exponent form, where en-US writes the same
 * shortest digits followed by zeros.
 */
function plainDigits(n: number): string {
  const text = String(n)
  const e = text.indexOf('e+')
  if (e < 0) return text
  return text
    .slice(0, e)
    .replace('.', '')
    .padEnd(Number(text.slice(e + 2)) + 1, '0')
}

/** `x.toFixed(digits)` with a real minus sign, and no sign on a value that rounds to zero. */
function fixed(x: number, digits: number): string {
  const text = Math.abs(x).toFixed(digits)
  return x < 0 && Number(text) !== 0 ? `${MINUS}${text}` : text
}

/**
 * Two bounds: `89.4–99.6%`, or `−5.0% to 38.4%` when a bound is negative and a dash would read as a minus (a t
 * interval of a rate is not clipped to [0, 1]).
 */
function bounds(ci: Interval | null | undefined, scale: number, digits: number, unit: string): string {
  if (!ci || !finite(ci.lower) || !finite(ci.upper)) return DASH
  const lower = fixed(ci.lower * scale, digits)
  const upper = fixed(ci.upper * scale, digits)
  return lower.startsWith(MINUS) ? `${lower}${unit} to ${upper}${unit}` : `${lower}–${upper}${unit}`
}

/** An interval of ratios as percentages, `89.4–99.6%`. */
export function percentInterval(ci: Interval | null | undefined): string {
  return bounds(ci, 100, 1, '%')
}

/** An interval of scores, `0.812–0.901`. */
export function decimalInterval(ci: Interval | null | undefined, digits = 3): string {
  return bounds(ci, 1, digits, '')
}

/** A change of a ratio in percentage points, signed: `+2.0 pp`, `−12.5 pp` (no sign for `0.0 pp`). */
export function points(delta: Figure): string {
  if (!finite(delta)) return DASH
  const rounded = (Math.abs(delta) * 100).toFixed(1)
  const sign = rounded === '0.0' ? '' : delta > 0 ? '+' : MINUS
  return `${sign}${rounded} pp`
}

/** An interval of a change in percentage points, `[−5.1, +1.2] pp`. */
export function pointsInterval(ci: Interval | null | undefined): string {
  if (!ci || !finite(ci.lower) || !finite(ci.upper)) return DASH
  const bare = (x: number) => points(x).replace(/ pp$/, '')
  return `[${bare(ci.lower)}, ${bare(ci.upper)}] pp`
}

/** A p-value with 3 significant digits. */
export function pValue(p: Figure): string {
  return finite(p) ? p.toPrecision(3) : DASH
}

/** A confidence level as a percentage without trailing zeros: 0.95 → `95%`, 0.995 → `99.5%`. */
export function confidenceLabel(confidence: number): string {
  return `${Math.round(confidence * 1000) / 10}%`
}

/** `7/10`. */
export function fraction(passed: number, trials: number): string {
  return `${passed}/${trials}`
}

/** `1 task`, `3 tasks`. */
export function plural(count: number, noun: string, many = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : many}`
}

export function errorPolicyText(policy: ErrorPolicy): string {
  return policy === 'exclude' ? 'infra failures excluded' : 'infra failures counted as failures'
}

export function intervalMethod(method: 'wilson' | 't'): string {
  return method === 'wilson' ? 'Wilson' : 't over per-task rates'
}

/** How the statistics were computed, in one line; `code` shows the cluster label as code in its format. */
export function settingsText(
  settings: SummarySettings,
  code: (text: string) => string = (text) => `\`${text}\``,
): string {
  return [
    `${confidenceLabel(settings.confidence)} confidence`,
    `trials reduced per task by ${settings.reducer}`,
    errorPolicyText(settings.errorPolicy),
    settings.clusterBy === null ? 'no clustering' : `clustered by label ${code(settings.clusterBy)}`,
    `bootstrap ${integer(settings.bootstrap.resamples)} resamples, seed ${settings.bootstrap.seed}`,
  ].join(' · ')
}

/** The first `max` items, then `… and N more`. */
export function capped(items: readonly string[], max: number): string {
  const shown = items.slice(0, max).join(', ')
  return items.length > max ? `${shown} … and ${items.length - max} more` : shown
}

export function steps(citations: readonly number[]): string {
  if (citations.length === 0) return ''
  return citations.length === 1 ? `step ${citations[0]}` : `steps ${citations.join(', ')}`
}

/** Long free text (explanations, errors) would make a table unreadable: keep its start. */
export function clip(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

export { DASH }
