/** Number formats shared by the renderers, so the markdown and html reports of a run show the same figures. */

const DASH = '—'

export function percent(ratio: number): string {
  return Number.isFinite(ratio) ? `${(ratio * 100).toFixed(1)}%` : DASH
}

export function usd(amount: number): string {
  return Number.isFinite(amount) ? `$${amount.toFixed(4)}` : DASH
}

export function seconds(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : DASH
}

export function decimal(value: number, digits = 3): string {
  return Number.isFinite(value) ? value.toFixed(digits) : DASH
}

export function integer(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : DASH
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
