import { AgentEvalOpsError, type Evaluator } from '../../core/index.ts'
import { analyzeResolved, type TraceQualityReport } from './analyze.ts'
import { resolveOptions, type TraceQualityOptions } from './options.ts'

export interface TraceQualityEvaluatorOptions extends TraceQualityOptions {
  id?: string
}

/** Findings quoted in the explanation; the rest are in `findings`, so scores.json stays readable. */
const EXPLAINED = 3

function explain(report: TraceQualityReport): string {
  const { findings, toolCalls } = report
  if (findings.length === 0)
    return `no trace-quality issues in ${toolCalls} tool call${toolCalls === 1 ? '' : 's'}`
  const counts = new Map<string, number>()
  for (const f of findings) counts.set(f.type, (counts.get(f.type) ?? 0) + 1)
  const summary = [...counts].map(([type, n]) => `${n} ${type}`).join(', ')
  const shown = findings.slice(0, EXPLAINED).map((f) => f.message)
  const more = findings.length > EXPLAINED ? `; and ${findings.length - EXPLAINED} more` : ''
  return `${report.passed ? 'passed' : 'failed'} with ${summary}: ${shown.join('; ')}${more}`
}

/**
 * Scores the quality of the trial's trace (see analyzeTraceQuality for what is found and how it is scored). Options
 * are checked here, once, so a bad threshold fails the run's setup rather than every trial.
 */
export function traceQuality(options: TraceQualityEvaluatorOptions = {}): Evaluator {
  const resolved = resolveOptions(options, 'traceQuality', ['id'])
  if (options.id !== undefined && (typeof options.id !== 'string' || options.id === '')) {
    throw new AgentEvalOpsError('CONFIG_INVALID', 'traceQuality: id must be a non-empty string', {
      hint: "Leave it out to use 'trace-quality'.",
    })
  }
  return {
    id: options.id ?? 'trace-quality',
    kind: 'trace_quality',
    evaluate(view) {
      const report = analyzeResolved(view.events, resolved)
      const citations = [...new Set(report.findings.flatMap((f) => f.citations))].sort((a, b) => a - b)
      return {
        score: report.score,
        passed: report.passed,
        costUsd: 0,
        explanation: explain(report),
        citations,
        findings: report.findings,
      }
    },
  }
}
