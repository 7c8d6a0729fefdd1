import type { ExtraFile } from '../src/bundles/index.ts'
import {
  errorMessage,
  type RunMetadata,
  type RunSummary,
  type TraceEvent,
  type TrialRecord,
} from '../src/core/index.ts'
import type { StageTime } from '../src/observability/index.ts'
import { HTML_REPORT_FILE, renderHtmlReport } from '../src/reports/html/index.ts'

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
  summary: RunSummary
  /** When the statistics were computed, for the run's `eval.score` span. */
  score?: StageTime | undefined
}

/**
 * The bundle files made from a run's checked events: its spans (spans.jsonl, OTLP JSON) and report.html. Both are
 * written by the bundle writer once the traces are in, so they show exactly the events the bundle holds. `export`
 * then sends the same spans to an OTLP endpoint, when the environment names one.
 */
export function derivedRunFiles(run: DerivedRun, env: NodeJS.ProcessEnv = process.env) {
  let spanLines: string[] = []
  return {
    derivedFiles: async (events: readonly TraceEvent[]): Promise<ExtraFile[]> => {
      const { buildRunSpanLines, captureContentFromEnv, otlpLinesText, SPANS_FILE } =
        await loadObservability()
      const started = new Date()
      const clock = performance.now()
      const html = renderHtmlReport({ ...run, events })
      const report = { startedAt: started.toISOString(), durationMs: performance.now() - clock }
      spanLines = buildRunSpanLines({
        ...run,
        events,
        captureContent: captureContentFromEnv(env),
        stages: { ...(run.score ? { score: run.score } : {}), report },
        env,
      })
      return [
        { path: SPANS_FILE, data: otlpLinesText(spanLines) },
        { path: HTML_REPORT_FILE, data: html },
      ]
    },
    /**
     * Sends the spans written into the bundle to the OTLP endpoint of the environment, if any. Never throws: a
     * collector that is down costs the run a warning, not its result. Returns that warning, or null.
     */
    exportSpans: async (): Promise<string | null> => {
      const { exportOtlp, otlpTarget } = await loadObservability()
      const target = otlpTarget(env)
      if (target === null || spanLines.length === 0) return null
      if ('error' in target) return `spans not exported: ${target.error}`
      try {
        const result = await exportOtlp(spanLines, target)
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
