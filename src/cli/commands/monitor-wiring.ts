import { parseMonitorEvaluators } from '../../evaluators/index.ts'
import {
  createAmpPublisher,
  createAmpTraceSource,
  createLangfusePublisher,
  createLangfuseSource,
  createOtlpFileSource,
  createOtlpLogsPublisher,
  createScoreAggregator,
  createTraceScorer,
  idpTokenProviderFromEnv,
} from '../../monitor/index.ts'
import type { MonitorEvaluatorSpec } from '../../core/index.ts'
import type { MonitorParts } from './monitor-parts.ts'

/** The parts the monitor command composes, by the names their modules export (see monitor-parts.ts). */
export const monitorParts: MonitorParts<MonitorEvaluatorSpec> = {
  parseMonitorEvaluators,
  createTraceScorer,
  createScoreAggregator,
  idpTokenProviderFromEnv,
  createAmpTraceSource,
  createAmpPublisher,
  createOtlpFileSource,
  createLangfuseSource,
  createLangfusePublisher,
  createOtlpLogsPublisher,
}
