import type { FullTrace, MonitorLevel } from '../../../src/core/index.ts'
import type { MonitorParts } from '../../../src/cli/commands/monitor-parts.ts'
import type { ScorePublisher, SourcedTrace } from '../../../src/monitor/index.ts'
import { heldAggregator } from './batch.ts'
import { engineScorer, meanAggregate } from './engine-scorer.ts'
import { arraySource, recordingPublisher } from './sources.ts'

interface Spec {
  identifier: string
  displayName: string
  level?: MonitorLevel
}

/**
 * The monitor command's parts for its tests: the evaluators argument read as plain JSON, the real engine scorer of
 * engine-scorer.ts, in-test sources and sinks. What each factory was asked for is kept, to check the wiring.
 */
export function testParts(
  options: {
    traces?: readonly (FullTrace | SourcedTrace)[]
    publisher?: ScorePublisher & { batches: unknown[] }
    delayMs?: number
  } = {},
) {
  const publisher = options.publisher ?? recordingPublisher()
  const asked: { factory: string; options: unknown }[] = []
  const source = () => arraySource(options.traces ?? [])
  const parts: MonitorParts<Spec> = {
    parseMonitorEvaluators: (text) => JSON.parse(text) as Spec[],
    createTraceScorer: (o) => {
      asked.push({ factory: 'createTraceScorer', options: { ...o, traceStore: typeof o.traceStore } })
      return engineScorer({ runId: o.runId, traceStore: o.traceStore, delayMs: options.delayMs ?? 0 })
    },
    createScoreAggregator: () => heldAggregator(meanAggregate),
    idpTokenProviderFromEnv: () => null,
    createAmpTraceSource: (o) => (asked.push({ factory: 'createAmpTraceSource', options: o }), source()),
    createAmpPublisher: (o) => (asked.push({ factory: 'createAmpPublisher', options: o }), publisher),
    createOtlpFileSource: (o) => (asked.push({ factory: 'createOtlpFileSource', options: o }), source()),
    createLangfuseSource: (o) => (asked.push({ factory: 'createLangfuseSource', options: o }), source()),
    createLangfusePublisher: (o) => (
      asked.push({ factory: 'createLangfusePublisher', options: o }),
      publisher
    ),
    createOtlpLogsPublisher: (o) => (
      asked.push({ factory: 'createOtlpLogsPublisher', options: o }),
      publisher
    ),
  }
  return { parts, publisher, asked }
}

export const EVALUATORS = JSON.stringify([{ identifier: 'answer-ok', displayName: 'Answer is ok' }])

/** The seed's flags for one window, against the given endpoints. */
export function seedFlags(extra: Record<string, string> = {}): string[] {
  const flags: Record<string, string> = {
    '--monitor-name': 'support',
    '--organization': 'acme',
    '--project': 'helpdesk',
    '--agent': 'support-agent',
    '--environment': 'prod',
    '--evaluators': EVALUATORS,
    '--sampling-rate': '1',
    '--trace-start': '2026-01-31T00:00:00Z',
    '--trace-end': '2026-01-31T01:00:00Z',
    '--traces-api-endpoint': 'http://127.0.0.1:1/traces',
    '--monitor-id': 'mon-1',
    '--run-id': 'run-1',
    '--publisher-endpoint': 'http://127.0.0.1:1/publisher',
    ...extra,
  }
  return Object.entries(flags).flatMap(([k, v]) => (v === '' ? [k] : [k, v]))
}
