import { AgentEvalOpsError, errorMessage, sdkVersion } from '../../core/index.ts'
import type { LogRecordExporter } from '@opentelemetry/sdk-logs'
import type { MonitorScore, MonitorScoreBatch, ScorePublisher } from '../contract.ts'
import { otlpIdsOf } from '../sources/otlp-file-source.ts'

/*
 * Scores as OpenTelemetry `gen_ai.evaluation.result` events (GenAI semantic conventions), sent over OTLP/HTTP by
 * the OpenTelemetry JS logs SDK (LoggerProvider, BatchLogRecordProcessor, OTLPLogExporter), each record in the
 * context of the span it judges, so a backend shows the score on that span. The SDK is loaded on the first
 * publish: nothing else of monitor mode needs it.
 *
 * Attributes: gen_ai.evaluation.name (the evaluator's display name), gen_ai.evaluation.score.value,
 * gen_ai.evaluation.score.label (`pass` for 1, `fail` for 0, `skipped` for a skip; none in between, as we know no
 * threshold), gen_ai.evaluation.explanation (or the skip reason); and ours: the score id (stable across reruns, for
 * de-duplication downstream), the evaluator identifier, level, monitor and run. The OTLP exporter retries what its
 * protocol says to retry (429, 502, 503, 504); an export that still fails makes `publish` throw.
 */

export const EVENT_GEN_AI_EVALUATION_RESULT = 'gen_ai.evaluation.result'
/** Records handed to the SDK between flushes, bounding what is held in memory for a large window. */
export const OTLP_LOGS_CHUNK = 512
const EXPORT_SUCCESS = 0

export interface OtlpLogsPublisherOptions {
  /** The collector's OTLP/HTTP base (`http://collector:4318`, `/v1/logs` appended) or its full logs URL. */
  endpoint: string
  headers?: Record<string, string>
  /** Per export request; default 10 s (the exporter's). */
  timeoutMillis?: number
}

/** The logs URL an endpoint names: kept when it ends in /v1/logs, else /v1/logs appended. */
export function otlpLogsUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '')
  if (!/^https?:\/\//.test(base)) {
    throw new AgentEvalOpsError(
      'USAGE',
      `OTLP logs endpoint must be an http(s) URL, got ${JSON.stringify(endpoint)}`,
    )
  }
  return base.endsWith('/v1/logs') ? base : `${base}/v1/logs`
}

export function createOtlpLogsPublisher(options: OtlpLogsPublisherOptions): ScorePublisher {
  const url = otlpLogsUrl(options.endpoint)
  return {
    description: `OTLP logs ${url}`,
    publish: (batch, signal) => publishLogs(url, options, batch, signal),
  }
}

async function publishLogs(
  url: string,
  options: OtlpLogsPublisherOptions,
  batch: MonitorScoreBatch,
  signal: AbortSignal,
): Promise<void> {
  const [{ LoggerProvider, BatchLogRecordProcessor }, { OTLPLogExporter }, api] = await Promise.all([
    import('@opentelemetry/sdk-logs'),
    import('@opentelemetry/exporter-logs-otlp-http'),
    import('@opentelemetry/api'),
  ])
  const failures: string[] = []
  const exporter = new OTLPLogExporter({
    url,
    headers: options.headers ?? {},
    ...(options.timeoutMillis === undefined ? {} : { timeoutMillis: options.timeoutMillis }),
  })
  // The SDK reports a failed export to a callback only; this exporter keeps the outcome so publish can say so.
  const reporting: LogRecordExporter = {
    export(logs, done) {
      exporter.export(logs, (result) => {
        // ExportResultCode.SUCCESS is 0; its enum lives in @opentelemetry/core, which is not a dependency of ours.
        if (Number(result.code) !== EXPORT_SUCCESS)
          failures.push(result.error ? errorMessage(result.error) : 'export failed')
        done(result)
      })
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
  }
  const provider = new LoggerProvider({
    processors: [
      new BatchLogRecordProcessor({
        exporter: reporting,
        maxExportBatchSize: OTLP_LOGS_CHUNK,
        maxQueueSize: OTLP_LOGS_CHUNK,
        exportTimeoutMillis: options.timeoutMillis ?? 10_000,
      }),
    ],
  })
  const logger = provider.getLogger('agentevalops', sdkVersion())
  // The scores are streamed from the batch's spill; a flush every OTLP_LOGS_CHUNK records bounds what is queued.
  const flush = async (sent: number) => {
    await provider.forceFlush()
    if (failures.length > 0) {
      throw new AgentEvalOpsError(
        'INFRA_FAILURE',
        `OTLP logs export to ${url} failed: ${failures[0]} (${sent} of ${batch.count} scores sent before)`,
        {
          hint: 'check the collector is up and accepts OTLP/HTTP logs; sending again is safe, each score keeps its id',
        },
      )
    }
  }
  try {
    let emitted = 0
    let flushed = 0
    for await (const score of batch.scores()) {
      if (signal.aborted) throw new AgentEvalOpsError('RUN_ABORTED', `OTLP logs export to ${url} aborted`)
      const parent = parentOf(score)
      logger.emit({
        eventName: EVENT_GEN_AI_EVALUATION_RESULT,
        timestamp: new Date(),
        attributes: evaluationAttributes(score, batch),
        ...(parent
          ? {
              context: api.trace.setSpanContext(api.ROOT_CONTEXT, {
                ...parent,
                traceFlags: api.TraceFlags.SAMPLED,
              }),
            }
          : {}),
      })
      if (++emitted - flushed === OTLP_LOGS_CHUNK) {
        await flush(flushed)
        flushed = emitted
      }
    }
    if (emitted > flushed) await flush(flushed)
  } finally {
    await provider.shutdown().catch(() => undefined)
  }
}

/** The span a score judges, when its trace id is an OTLP one (a source that is not OTLP may name others). */
function parentOf(score: MonitorScore): { traceId: string; spanId: string } | null {
  const ids = otlpIdsOf(score.individual.traceId)
  if (!ids || !/^[0-9a-f]{16}$/i.test(score.spanId)) return null
  return { traceId: ids.traceId, spanId: score.spanId.toLowerCase() }
}

/** The event's attributes, per the GenAI conventions' evaluation event and ours. */
export function evaluationAttributes(
  score: MonitorScore,
  batch: MonitorScoreBatch,
): Record<string, string | number> {
  const s = score.individual
  const label =
    s.score === undefined ? 'skipped' : s.score === 1 ? 'pass' : s.score === 0 ? 'fail' : undefined
  const explanation = s.explanation ?? s.skipReason
  const out: Record<string, string | number | undefined> = {
    'gen_ai.evaluation.name': s.evaluatorName,
    'gen_ai.evaluation.score.value': s.score,
    'gen_ai.evaluation.score.label': label,
    'gen_ai.evaluation.explanation': explanation,
    'gen_ai.agent.name': s.spanContext?.agentName,
    'gen_ai.request.model': s.spanContext?.model,
    'gen_ai.provider.name': s.spanContext?.vendor,
    'agentevalops.score.id': score.id,
    'agentevalops.evaluator.id': score.identifier,
    'agentevalops.monitor.level': s.level,
    'agentevalops.monitor.trace_id': s.traceId,
    'agentevalops.monitor.name': batch.monitorName,
    'agentevalops.monitor.id': batch.monitorId,
    'agentevalops.monitor.run_id': batch.runId,
  }
  const kept: Record<string, string | number> = {}
  for (const [key, value] of Object.entries(out)) if (value !== undefined) kept[key] = value
  return kept
}
