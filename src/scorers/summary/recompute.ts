import type { ScoredTrial, SummarySettings } from '../../core/index.ts'
import { resolveSummarySettings, type SummaryOptions } from './settings.ts'
import { STATISTICS_METHOD_VERSION, summarizeTrials } from './stats-scorer.ts'

/**
 * The stats scorer as validate-bundle recomputes a stored summary with it (bundles' `RecomputeSummary`): the
 * stored settings go through the scorer's own checks and bounds first.
 */
export const statsSummaryRecomputer = {
  methodVersion: STATISTICS_METHOD_VERSION,
  settings: (stored: unknown): SummarySettings => resolveSummarySettings(stored as SummaryOptions),
  summarize: (trials: readonly ScoredTrial[], settings: SummarySettings): unknown =>
    summarizeTrials(trials, settings),
}
