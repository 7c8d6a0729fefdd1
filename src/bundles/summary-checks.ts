import { errorMessage, type ScoresRecords, type ScoredTrial, type SummarySettings } from '../core/index.ts'
import { clip, type FindingList } from './findings.ts'
import { SCORES_FILE } from './layout.ts'

/**
 * Relative tolerance of a recomputed figure. The scorer is deterministic (seeded bootstrap, sorted tasks) and JSON
 * keeps every double exactly, so a sound bundle matches to the bit; the slack only absorbs a last-digit difference
 * in floating-point arithmetic between platforms.
 */
const TOLERANCE = 1e-9

/** Set by the reporter from the baseline run, which the bundle does not hold: not recomputable from its trials. */
const NOT_DERIVED = new Set(['comparison'])

/**
 * scores.json's summary is what its trials give: the stats scorer (the one the reporter and `recover` write it
 * with) is run again over the trials with the settings the summary records, and every figure compared. A headline
 * edited to 0.99, with the manifest recomputed to match, is found here. Format 1 has no summary to check.
 */
export interface RecomputeSummary {
  /**
   * The version of the statistics method `summarize` computes. A summary stamped with another version (or with none:
   * written before the stamp) is not recomputed: its figures may differ without anyone having edited them.
   */
  methodVersion: number
  /** The stored settings, checked and bounded as the scorer takes them (a hostile file cannot ask for hours). */
  settings(stored: unknown): SummarySettings
  summarize(trials: readonly ScoredTrial[], settings: SummarySettings): unknown
}

/** `notes` gets what was not checked and why: no finding, but a reader of the verdict should know. */
export function checkSummary(
  scores: ScoresRecords | undefined,
  findings: FindingList,
  scorer: RecomputeSummary,
  notes: string[],
): void {
  const stored = scores?.summary
  if (!scores || !stored) return
  if (stored.statisticsVersion !== scorer.methodVersion) {
    notes.push(notRecomputedNote(stored.statisticsVersion, scorer.methodVersion))
    return
  }
  let settings
  try {
    // The scorer's own bounds (bootstrap resamples): a hostile file cannot make the validator run for hours.
    settings = scorer.settings(stored.settings)
  } catch (e) {
    findings.add(
      'summary-matches',
      SCORES_FILE,
      `summary.settings cannot be used to recompute the summary: ${errorMessage(e)}`,
    )
    return
  }
  const recomputed = scorer.summarize(scores.trials, settings) as Record<string, unknown>
  const differences: string[] = []
  for (const [key, value] of Object.entries(stored)) {
    if (NOT_DERIVED.has(key)) continue
    compare(value, recomputed[key], `summary.${key}`, differences)
  }
  const category = { key: 'scores:summary', label: 'summary figures that differ from what the trials give' }
  for (const difference of differences) {
    findings.add(
      'summary-matches',
      SCORES_FILE,
      `${difference} (changed after the run was scored?)`,
      category,
    )
  }
}

/**
 * Walks what the file holds. A key the scorer writes and the file lacks is left alone: bundles written before a
 * field existed (the headline's groups) lack it, and the schema already requires every field that must be there.
 */
function compare(stored: unknown, expected: unknown, path: string, out: string[]): void {
  if (typeof stored === 'number' && typeof expected === 'number') {
    const scale = Math.max(1, Math.abs(stored), Math.abs(expected))
    if (!(Math.abs(stored - expected) <= TOLERANCE * scale))
      out.push(`${path} is ${stored} but the trials give ${expected}`)
    return
  }
  if (Array.isArray(stored) && Array.isArray(expected)) {
    if (stored.length !== expected.length) {
      out.push(`${path} has ${stored.length} entries but the trials give ${expected.length}`)
      return
    }
    stored.forEach((item, i) => compare(item, expected[i], `${path}[${i}]`, out))
    return
  }
  if (isObject(stored) && isObject(expected)) {
    for (const [key, value] of Object.entries(stored)) {
      if (!(key in expected)) {
        if (value !== undefined) out.push(`${path}.${clip(key)} is not a figure the scorer writes`)
        continue
      }
      compare(value, expected[key], `${path}.${clip(key)}`, out)
    }
    return
  }
  if (stored !== expected) out.push(`${path} is ${show(stored)} but the trials give ${show(expected)}`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function show(value: unknown): string {
  return clip(JSON.stringify(value) ?? String(value))
}

function notRecomputedNote(stored: number | undefined, current: number): string {
  const writer =
    stored === undefined
      ? 'it names no statistics method (written before summaries carried statisticsVersion)'
      : `it was written by statistics method v${stored}`
  return (
    `${SCORES_FILE}: the summary was not recomputed (summary-matches): ${writer}, and the figures of another ` +
    `method than this agentevalops's v${current} may differ without an edit`
  )
}
