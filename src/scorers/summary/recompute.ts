import type { ScoredTrial, SummarySettings } from '../../core/index.ts'
import { resolveSummarySettings, type SummaryOptions } from './settings.ts'
import { summarizeTrials } from './stats-scorer.ts'

/**
 * The stats scorer as validate-bundle recomputes a stored summary with it (bundles' `RecomputeSummary`): the
 * stored settings go through the scorer's own checks and bounds first.
 */
export const statsSummaryRecomputer = {
  settings: (stored: unknown): SummarySettings => resolveSummarySettings(stored as SummaryOptions),
  summarize: (trials: readonly ScoredTrial[], settings: SummarySettings): unknown =>
    summarizeTrials(trials, settings),
}
