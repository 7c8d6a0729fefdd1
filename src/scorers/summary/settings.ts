import * as z from 'zod'
import { AgentEvalOpsError, docPath, SummarySettings } from '../../core/index.ts'
import { parseSettings } from '../parse-settings.ts'

export const DEFAULT_SUMMARY_SETTINGS: SummarySettings = {
  confidence: 0.95,
  reducer: 'mean',
  errorPolicy: 'count-as-failure',
  clusterBy: 'category',
  bootstrap: { resamples: 2000, seed: 20_261_130 },
}

/** What a user may set; the rest comes from DEFAULT_SUMMARY_SETTINGS. */
export const SummaryOptions = SummarySettings.extend({
  bootstrap: SummarySettings.shape.bootstrap.partial(),
}).partial()
export type SummaryOptions = z.input<typeof SummaryOptions>

/** Bootstrap work is bounded: more resamples than this add nothing a report could show. */
const MAX_RESAMPLES = 100_000

export function resolveSummarySettings(options: SummaryOptions = {}): SummarySettings {
  const { bootstrap, ...rest } = parseSettings(
    SummaryOptions,
    options,
    'statistics settings',
    `See ${docPath('statistics.md')} for confidence, reducer, errorPolicy, clusterBy and bootstrap.`,
  )
  const settings: SummarySettings = {
    ...DEFAULT_SUMMARY_SETTINGS,
    ...rest,
    bootstrap: { ...DEFAULT_SUMMARY_SETTINGS.bootstrap, ...bootstrap },
  }
  if (settings.bootstrap.resamples > MAX_RESAMPLES) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `bootstrap.resamples is ${settings.bootstrap.resamples}; at most ${MAX_RESAMPLES} are allowed.`,
      { hint: 'A few thousand resamples give a stable 95% interval.' },
    )
  }
  return settings
}
