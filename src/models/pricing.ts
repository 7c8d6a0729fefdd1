/**
 * List prices of Anthropic and OpenAI models, in USD per million tokens. Prices change: the table carries the date of the
 * newest price it holds, so a cost in a bundle can be traced to the prices it used. A model missing here is
 * priced as unknown (null), never guessed from a neighbour: add it with its published price.
 */
export const PRICES_AS_OF = '2026-02-17'

export interface ModelPrice {
  /** USD per million input tokens (not counting cache reads or writes). */
  input: number
  output: number
  /** Writing to the prompt cache (the 5-minute cache; the 1-hour cache costs more and is not modelled). */
  cacheWrite: number
  cacheRead: number
}

/** Token counts as the Messages API reports them; the cache counts are null or absent when no cache was used. */
export interface TokenUsage {
  input_tokens: number
  output_tokens: number
  cache_creation_input_tokens?: number | null
  cache_read_input_tokens?: number | null
}

/**
 * Model families by the id the API accepts as an alias. Long-context (> 200k input tokens) surcharges of the
 * Sonnet models are not modelled: a judge or agent call that large is priced at the base rate.
 */
export const MODEL_PRICES: Readonly<Record<string, Readonly<ModelPrice>>> = {
  'claude-opus-4-6': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-5': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-sonnet-4-6': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-opus-4-1': { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 },
  'claude-opus-4': { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-sonnet-4': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08 },
  // OpenAI, for judges behind an OpenAI-compatible gateway: standard-tier list prices as of 2025-12-11 (source:
  // openai.com/api/pricing). OpenAI bills no cache writes (cacheWrite = input is never used: its usage has none);
  // cacheRead is its "cached input" price. Batch and flex tiers are not modelled.
  'gpt-5.2': { input: 1.75, output: 14, cacheWrite: 1.75, cacheRead: 0.175 },
  'gpt-5.1': { input: 1.25, output: 10, cacheWrite: 1.25, cacheRead: 0.125 },
  'gpt-5': { input: 1.25, output: 10, cacheWrite: 1.25, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheWrite: 0.25, cacheRead: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheWrite: 0.05, cacheRead: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cacheWrite: 2, cacheRead: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheWrite: 0.4, cacheRead: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheWrite: 0.1, cacheRead: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cacheWrite: 2.5, cacheRead: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheWrite: 0.15, cacheRead: 0.075 },
  o3: { input: 2, output: 8, cacheWrite: 2, cacheRead: 0.5 },
  'o3-mini': { input: 1.1, output: 4.4, cacheWrite: 1.1, cacheRead: 0.55 },
  'o4-mini': { input: 1.1, output: 4.4, cacheWrite: 1.1, cacheRead: 0.275 },
}

// A family id followed only by a snapshot date (Anthropic's `-20250929`, OpenAI's `-2024-08-06`) or `-latest`.
// Anything else is a different model: `claude-opus-4` must not price `claude-opus-4-5`, which costs a third as
// much, nor `gpt-5` price `gpt-5-mini`.
const SNAPSHOT_SUFFIX = /^(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest)?$/

/** The price of a model id (`claude-sonnet-4-5`, `gpt-4o` or a dated snapshot), or null when the table lacks it. */
export function priceOf(model: string): ModelPrice | null {
  const id = model.trim().toLowerCase()
  for (const [family, price] of Object.entries(MODEL_PRICES)) {
    if (id.startsWith(family) && SNAPSHOT_SUFFIX.test(id.slice(family.length))) return { ...price }
  }
  return null
}

/** What a call cost in USD at list price; null for a model the table does not know (never a guess). */
export function costOf(model: string, usage: TokenUsage): number | null {
  const price = priceOf(model)
  if (price === null) return null
  const perToken =
    usage.input_tokens * price.input +
    usage.output_tokens * price.output +
    (usage.cache_creation_input_tokens ?? 0) * price.cacheWrite +
    (usage.cache_read_input_tokens ?? 0) * price.cacheRead
  // Rounded to a nano-dollar so sums of many calls do not drift into float noise in reports.
  return Math.round(perToken * 1e3) / 1e9
}

/** Every token a call processed, cache reads and writes included: what counts against a token budget. */
export function totalTokens(usage: TokenUsage): number {
  return (
    usage.input_tokens +
    usage.output_tokens +
    (usage.cache_creation_input_tokens ?? 0) +
    (usage.cache_read_input_tokens ?? 0)
  )
}
