import {
  AgentEvalOpsError,
  type AgentRunner,
  type AmpSpan,
  type BenchmarkInfo,
  type Evaluator,
  type EvaluatorScore,
  type FullTrace,
  type IndividualScore,
  type MonitorEvaluatorSpec,
  type MonitorJudgeSettings,
  type TraceStore,
} from '../../core/index.ts'
import { runTrial } from '../../engine/index.ts'
import type { MonitorScore, ScoredTrace, TraceScorer } from '../contract.ts'
import { scoreId } from './score-id.ts'
import { ampOf } from './span-content.ts'
import { agentAbove, agentNameOf, traceTrial, type TrialTarget } from './trace-trial.ts'
import { unkeptTraces } from './unkept-traces.ts'

export interface TraceScorerOptions {
  specs: readonly MonitorEvaluatorSpec[]
  monitorName: string
  /** The window's run id: the run the trials belong to. */
  runId: string
  /** Where the trace-level trials' events go: the window's bundle. Span-level trials are scored in memory. */
  traceStore: TraceStore
  /** How LLM judges reach their model (the job reads LLM_API_BASE / LLM_API_KEY). */
  judge?: MonitorJudgeSettings
}

/** The window's "benchmark": the monitor. Every window of a monitor has the same, so windows compare. */
export function monitorBenchmark(monitorName: string): BenchmarkInfo {
  return { id: monitorName, version: 'monitor', datasetChecksum: '' }
}

// The re-score path never runs the agent; a runner that is asked to anyway is a bug, said plainly.
function productionRunner(name: string): AgentRunner {
  return {
    runnerInfo: () => ({ name, kind: 'monitor', config: {} }),
    run: () => {
      throw new AgentEvalOpsError('INFRA_FAILURE', 'a production trace is re-scored, never run again')
    },
  }
}

interface Built {
  spec: MonitorEvaluatorSpec
  evaluator: Evaluator
}

function skipReasonOf(score: EvaluatorScore): string | null {
  return score.error === null ? null : `could not judge: ${score.error}`
}

/**
 * Scores one production trace with the monitor's evaluators, level by level, each target through the engine's
 * re-score path (runTrial with `reuse: rescored`), the path a resumed trial takes: no second evaluation loop.
 * Level `trace` judges the whole trace (its trial is the one the window's bundle keeps); `agent` the subtree under
 * each agent span, `llm` each LLM span alone, as trials of their own in memory. An evaluator that could not judge
 * (it threw, its model kept failing), or a trace whose run was interrupted, gives a score with a skipReason.
 */
export function createTraceScorer(options: TraceScorerOptions): TraceScorer {
  const judge = options.judge ?? {}
  const benchmark = monitorBenchmark(options.monitorName)
  const built: Built[] = options.specs.map((spec) => ({ spec, evaluator: spec.create(judge) }))
  const atLevel = (level: MonitorEvaluatorSpec['level']) => built.filter((b) => b.spec.level === level)
  const levels = { trace: atLevel('trace'), agent: atLevel('agent'), llm: atLevel('llm') }

  async function scoreTarget(
    trace: FullTrace,
    target: TrialTarget,
    evaluators: readonly Built[],
    traceStore: TraceStore,
    signal: AbortSignal,
  ) {
    const span = target.level === 'trace' ? null : target.span
    const taskId = span ? `${trace.traceId}/${span.spanId}` : trace.traceId
    const trial = traceTrial(trace, target, { runId: options.runId, benchmark, taskId })
    const run = await runTrial({
      runId: options.runId,
      benchmark,
      task: trial.task,
      trial: 0,
      runner: productionRunner(trial.from.runner.name),
      evaluators: evaluators.map((b) => b.evaluator),
      traceStore,
      signal,
      reuse: { mode: 'rescored', from: trial.from, events: trial.events },
    })
    const byId = new Map(run.record.scores.map((s) => [s.evaluatorId, s]))
    const interrupted = run.record.result?.terminatedBy === 'interrupted'
    const targetId = span ? span.spanId : trace.traceId
    const scores = evaluators.map(({ spec }): MonitorScore => {
      const score = byId.get(spec.displayName)
      const skip = interrupted
        ? 'the traced run was interrupted: nothing to judge'
        : score
          ? skipReasonOf(score)
          : 'not scored'
      const individual: IndividualScore = {
        evaluatorName: spec.displayName,
        level: spec.level,
        traceId: trace.traceId,
        ...(skip === null && score ? { score: score.score } : { skipReason: skip ?? 'not scored' }),
        ...(score?.explanation ? { explanation: score.explanation } : {}),
        traceStartTime: trace.startTime,
        ...(span ? { spanContext: spanContextOf(trace, span) } : {}),
      }
      return {
        id: scoreId(targetId, spec.identifier, spec.version),
        identifier: spec.identifier,
        spanId: span ? span.spanId : trace.rootSpanId,
        individual,
        costUsd: score?.costUsd ?? 0,
        ...(skip === null && score ? { passed: score.passed } : {}),
      }
    })
    return { run, scores }
  }

  return async (trace, signal) => {
    const main = await scoreTarget(trace, { level: 'trace' }, levels.trace, options.traceStore, signal)
    const scores = [...main.scores]
    for (const level of ['agent', 'llm'] as const) {
      if (levels[level].length === 0) continue
      const spans = trace.spans.filter((s) => ampOf(s).kind === level)
      for (const span of spans) {
        if (signal.aborted) break
        const spanRun = await scoreTarget(trace, { level, span }, levels[level], unkeptTraces(), signal)
        scores.push(...spanRun.scores)
      }
    }
    const scored: ScoredTrace = {
      traceId: trace.traceId,
      scores,
      record: main.run.record,
      events: main.run.events,
    }
    return scored
  }
}

/** Which span a span-level score judged, in the seed's shape. */
function spanContextOf(trace: FullTrace, span: AmpSpan): NonNullable<IndividualScore['spanContext']> {
  const amp = ampOf(span)
  const agent = agentAbove(trace, span)
  return {
    spanId: span.spanId,
    ...(agent ? { agentName: agentNameOf(agent) } : {}),
    ...(amp.data?.model ? { model: amp.data.model } : {}),
    ...(amp.data?.vendor ? { vendor: amp.data.vendor } : {}),
  }
}
