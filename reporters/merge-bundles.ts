import { mergeShards, type MergeDerivation, type MergeInput, type MergeResult } from '../src/bundles/index.ts'
import { SPANS_FILE } from '../src/core/index.ts'
import { renderMarkdownReport } from '../src/reports/index.ts'
import { HTML_REPORT_FILE } from '../src/reports/html/index.ts'
import { DEFAULT_SUMMARY_SETTINGS, summarizeTrials } from '../src/scorers/index.ts'
import { derivedRunFiles } from './derived-files.ts'

/** A merged run's statistics, reports and spans, made as a run (and `recover`) makes its own. */
export const RUN_DERIVATION: MergeDerivation = {
  summarize: (trials, settings) => summarizeTrials(trials, settings ?? DEFAULT_SUMMARY_SETTINGS),
  reports: (run) => ({ 'report.md': renderMarkdownReport(run) }),
  derivedFiles: (run) => derivedRunFiles(run).derivedFiles,
  derivedFileNames: [SPANS_FILE, HTML_REPORT_FILE],
}

/**
 * Merges the bundles of one run's shards into one complete bundle (see mergeShards): the library function with the
 * statistics, reports and spans of a run. What `agentevalops merge`, the merge-reports reporter and the local
 * backend call.
 */
export function mergeBundles(input: MergeInput): Promise<MergeResult> {
  return mergeShards(input, RUN_DERIVATION)
}
