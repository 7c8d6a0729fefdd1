import { join } from 'node:path'
import { htmlTrialRow, HTML_REPORT_FILE, type HtmlReportTotals } from '../src/reports/html/index.ts'
import type { RunSpanWriter } from '../src/observability/index.ts'
import { loadObservability, type StreamedRows, type StreamedSpans } from './derived-files.ts'
import type { SortedPart } from './fold-seal.ts'
import type { FoldedTrialPart } from './run-fold.ts'

/** The parts' files in the fold folder. */
const SPANS_PART = 'spans.jsonl'
const ROWS_PART = 'report-rows.jsonl'

/**
 * The bundle files that grow with the run while the main process is otherwise idle: each folded trial's spans
 * (spans.jsonl's lines) and its row of report.html. The end adds the run's own span and report.html's run part.
 */
export class GrowingFiles {
  /** For RunFold: in this order, as `sealed` expects the sorted files. */
  readonly parts: readonly FoldedTrialPart[]

  private constructor(private readonly spans: RunSpanWriter) {
    this.parts = [
      { file: SPANS_PART, text: (record, events) => `${spans.trialSpanLine(record, events)}\n` },
      { file: ROWS_PART, text: (record, events) => `${htmlTrialRow(record, events)}\n` },
    ]
  }

  static async open(startedAt: Date, env: NodeJS.ProcessEnv = process.env): Promise<GrowingFiles> {
    const { RunSpanWriter, captureContentFromEnv } = await loadObservability()
    return new GrowingFiles(
      new RunSpanWriter({
        startedAt: startedAt.toISOString(),
        captureContent: captureContentFromEnv(env),
        env,
      }),
    )
  }

  /**
   * What derivedRunFiles takes, from the parts' files sorted in bundle order and the totals of the same trials: the
   * rows' file is closed to be read, the spans' stays open for the run's line.
   */
  async sealed(
    sortedParts: readonly SortedPart[],
    totals: HtmlReportTotals,
    foldDir: string,
  ): Promise<{ spans: StreamedSpans; rows: StreamedRows }> {
    const [spans, rows] = sortedParts
    if (spans === undefined || rows === undefined) throw new Error('GrowingFiles: the parts were not sorted')
    await rows.writer.close()
    return {
      spans: { writer: this.spans, file: spans.writer, path: spans.path },
      rows: { path: rows.path, totals, out: join(foldDir, HTML_REPORT_FILE) },
    }
  }
}
