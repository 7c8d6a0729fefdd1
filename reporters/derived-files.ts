import { join } from 'node:path'
import { writeDurableChunks, type DurableFileWriter, type ExtraFile } from '../src/bundles/index.ts'
import {
  errorMessage,
  isSealedSummary,
  sealedSummary,
  wholeSummary,
  type RunMetadata,
  type RunSummary,
  type SealedSummary,
  type TraceEvent,
  type TrialRecord,
} from '../src/core/index.ts'
import type { RunSpanWriter, StageTime } from '../src/observability/index.ts'
import {
  HTML_REPORT_FILE,
  htmlRunPart,
  renderHtmlReport,
  renderHtmlReportFromRows,
  type HtmlReportTotals,
} from '../src/reports/html/index.ts'

type Observability = typeof import('../src/observability/index.ts')
let observability: Promise<Observability> | undefined

/**
 * Loads the span code once. It writes OTLP JSON itself and loads no OpenTelemetry package, so this is cheap; the
 * reporter still starts it as a run starts, while the process has little else to do.
 */
export function loadObservability(): Promise<Observability> {
  observability ??= import('../src/observability/index.ts')
  return observability
}

export interface DerivedRun {
  metadata: RunMetadata
  /** As the run handed them over: live records still carry their phase timing, which the spans are drawn from. */
  trials: readonly TrialRecord[]
  /** A run that streams report.html's rows gives the sealed form: its task rows carry each task's tokens. */
  summary: RunSummary | SealedSummary
  /** When the statistics were computed, for the run's `eval.score` span. */
  score?: StageTime | undefined
  /**
   * The trials' spans, when they were written during the run: every trial's `writer.trialSpanLine(record, events)`
   * appended (with a newline) to `path` as the trial was folded. The run line is then appended here at the end and
   * the file becomes the bundle's spans.jsonl, and `trials` are not drawn again. Without it, every span is drawn
   * from `trials` and the events when the bundle is written.
   */
  spans?: StreamedSpans | undefined
  /**
   * report.html's rows, when they were written during the run (htmlTrialRow of every trial, a line each), with the
   * totals folded from the same trials: the end then adds only the run part. Without it, the page is drawn from
   * `trials` and the events.
   */
  rows?: StreamedRows | undefined
}

export interface StreamedRows {
  /** The rows file. */
  path: string
  totals: HtmlReportTotals
  /** Where report.html is written before the bundle takes it. */
  out: string
}

export interface StreamedSpans {
  /** The writer that made every trial's line (it holds the run's trace id and the run span's id). */
  writer: RunSpanWriter
  /** The file of the trials' lines, open for the run's line (closed here, so its digest is the bundle's). */
  file: DurableFileWriter
  path: string
}

/**
 * The bundle files made from a run's checked events: its spans (spans.jsonl, OTLP JSON) and report.html. Both are
 * written by the bundle writer once the traces are in, so they show exactly the events the bundle holds. `export`
 * then sends the same spans to an OTLP endpoint, when the environment names one.
 */
export function derivedRunFiles(run: DerivedRun, env: NodeJS.ProcessEnv = process.env) {
  /** What exportSpans sends: the lines made here, or the streamed file once its run line is in. */
  let spanLines: readonly string[] | ((bundleDir: string) => AsyncIterable<string>) | null = null
  return {
    derivedFiles: async (events: readonly TraceEvent[]): Promise<ExtraFile[]> => {
      const { buildRunSpanLines, captureContentFromEnv, otlpLinesText, readOtlpLines, SPANS_FILE } =
        await loadObservability()
      const started = new Date()
      const clock = performance.now()
      let htmlFile: ExtraFile
      if (run.rows) {
        const { path, totals, out } = run.rows
        if (!isSealedSummary(run.summary))
          throw new Error(
            'derivedRunFiles: streamed rows need the sealed summary, whose rows carry the tokens',
          )
        const page = renderHtmlReportFromRows(htmlRunPart(run.metadata, run.summary, totals), path)
        htmlFile = { path: HTML_REPORT_FILE, sourcePath: out, digest: await writeDurableChunks(out, page) }
      } else
        htmlFile = {
          path: HTML_REPORT_FILE,
          data: renderHtmlReport({ ...run, summary: wholeSummary(run.summary), events }),
        }
      const report = { startedAt: started.toISOString(), durationMs: performance.now() - clock }
      const stages = { score: run.score, report }
      if (run.spans) {
        const { writer, file, path } = run.spans
        await file.write(`${writer.runSpanLine(run.metadata, sealedSummary(run.summary).summary, stages)}\n`)
        const digest = await file.close()
        // Read back from the bundle, where the file is moved to.
        spanLines = (bundleDir) => readOtlpLines(join(bundleDir, SPANS_FILE))
        return [{ path: SPANS_FILE, sourcePath: path, digest }, htmlFile]
      }
      const lines = buildRunSpanLines({
        ...run,
        summary: wholeSummary(run.summary),
        events,
        captureContent: captureContentFromEnv(env),
        stages,
        env,
      })
      spanLines = lines
      return [{ path: SPANS_FILE, data: otlpLinesText(lines) }, htmlFile]
    },
    /**
     * Sends the spans written into the bundle (sealed in `bundleDir`) to the OTLP endpoint of the environment, if
     * any. Never throws: a collector that is down costs the run a warning, not its result. Returns that warning, or
     * null.
     */
    exportSpans: async (bundleDir: string): Promise<string | null> => {
      const { exportOtlp, otlpTarget } = await loadObservability()
      const target = otlpTarget(env)
      if (target === null || spanLines === null) return null
      if ('error' in target) return `spans not exported: ${target.error}`
      try {
        const result = await exportOtlp(
          typeof spanLines === 'function' ? spanLines(bundleDir) : spanLines,
          target,
        )
        return result.ok ? null : `spans not exported to ${target.url}: ${result.error}`
      } catch (e) {
        return `spans not exported to ${target.url}: ${errorMessage(e)}`
      }
    },
  }
}

/** Times a synchronous stage for its span. */
export function timeStage<T>(work: () => T): { value: T; stage: StageTime } {
  const startedAt = new Date().toISOString()
  const clock = performance.now()
  const value = work()
  return { value, stage: { startedAt, durationMs: performance.now() - clock } }
}
