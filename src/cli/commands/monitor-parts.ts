import type { MonitorLevel, TraceStore } from '../../core/index.ts'
import type { MonitorTraceSource, ScoreAggregator, ScorePublisher, TraceScorer } from '../../monitor/index.ts'

/** What the job needs of an evaluator spec (the score part's MonitorEvaluatorSpec has more). */
export interface EvaluatorSpecLike {
  identifier: string
  level?: MonitorLevel | undefined
}

/** A bearer token source (the wire part's TokenProvider). */
export interface TokenSource {
  token(signal: AbortSignal): Promise<string>
}

/**
 * The parts of monitor mode the command composes, by the names their owners export (see I21's split): the scoring
 * (src/monitor/scoring), the seed's protocols (src/monitor/amp), the other sources and sinks (src/monitor/sources,
 * src/monitor/sinks). The command takes them as a value so its tests can hand it in-test parts; monitor-wiring.ts
 * binds the real ones.
 */
export interface MonitorParts<Spec extends EvaluatorSpecLike = EvaluatorSpecLike> {
  parseMonitorEvaluators(text: string, origin: string): Spec[]
  createTraceScorer(options: {
    specs: Spec[]
    monitorName: string
    runId: string
    traceStore: TraceStore
    judge?: { baseURL?: string; apiKey?: string; provider?: 'anthropic' | 'openai' }
  }): TraceScorer
  /** Folds a window's scores into its aggregates as they arrive (see ScoreAggregator). */
  createScoreAggregator(specs: Spec[]): ScoreAggregator
  idpTokenProviderFromEnv(env: NodeJS.ProcessEnv): TokenSource | null
  createAmpTraceSource(options: {
    endpoint: string
    organization: string
    project: string
    agent: string
    environment: string
    tokens: TokenSource | null
  }): MonitorTraceSource
  createAmpPublisher(options: {
    endpoint: string
    monitorId: string
    runId: string
    tokens: TokenSource | null
  }): ScorePublisher
  createOtlpFileSource(options: { path: string }): MonitorTraceSource
  createLangfuseSource(options: {
    endpoint: string
    publicKey: string
    secretKey: string
  }): MonitorTraceSource
  createLangfusePublisher(options: { endpoint: string; publicKey: string; secretKey: string }): ScorePublisher
  createOtlpLogsPublisher(options: { endpoint: string; headers?: Record<string, string> }): ScorePublisher
}
