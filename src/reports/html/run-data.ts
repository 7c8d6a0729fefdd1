import type { RunMetadata, SummaryHead } from '../../core/index.ts'
import { runFacts, statusCaveat } from '../run-facts.ts'
import type { PageData } from './page-data.ts'

/** The run's identity, as report.md's header gives it, and a caveat when the run is not whole. */
export function runFactsData(
  metadata: RunMetadata,
  summary: SummaryHead,
): Pick<PageData, 'title' | 'run' | 'caveat'> {
  const [status, ...rest] = runFacts(metadata)
  const run: [string, string][] = [['Run', metadata.runId], status!, ['Trials', String(summary.n)], ...rest]
  const caveat = statusCaveat(metadata)
  return {
    title: `Run ${metadata.runId}`,
    run,
    caveat: caveat ? `${caveat.title}: ${caveat.text}` : null,
  }
}
