import { AgentEvalOpsError } from '../../core/index.ts'
import type { MonitorParts } from './monitor-parts.ts'

/*
 * INTEGRATION POINT. The parts the monitor command composes, owned by the other parts of issue 21 and not on this
 * branch yet: replace each `notWired(…)` by the named export of its module, e.g.
 *   import { parseMonitorEvaluators, createTraceScorer, aggregateScores } from '../../monitor/scoring/index.ts'
 *   import { createAmpTraceSource, createAmpPublisher, idpTokenProviderFromEnv } from '../../monitor/amp/index.ts'
 *   import { createOtlpFileSource, createLangfuseSource } from '../../monitor/sources/index.ts'
 *   import { createLangfusePublisher, createOtlpLogsPublisher } from '../../monitor/sinks/index.ts'
 * The signatures are MonitorParts' (monitor-parts.ts), which are those of the split.
 */
export const monitorParts: MonitorParts = {
  parseMonitorEvaluators: notWired('parseMonitorEvaluators', 'src/monitor/scoring'),
  createTraceScorer: notWired('createTraceScorer', 'src/monitor/scoring'),
  aggregateScores: notWired('aggregateScores', 'src/monitor/scoring'),
  idpTokenProviderFromEnv: notWired('idpTokenProviderFromEnv', 'src/monitor/amp'),
  createAmpTraceSource: notWired('createAmpTraceSource', 'src/monitor/amp'),
  createAmpPublisher: notWired('createAmpPublisher', 'src/monitor/amp'),
  createOtlpFileSource: notWired('createOtlpFileSource', 'src/monitor/sources'),
  createLangfuseSource: notWired('createLangfuseSource', 'src/monitor/sources'),
  createLangfusePublisher: notWired('createLangfusePublisher', 'src/monitor/sinks'),
  createOtlpLogsPublisher: notWired('createOtlpLogsPublisher', 'src/monitor/sinks'),
}

function notWired(name: string, where: string): (..._args: unknown[]) => never {
  return () => {
    throw new AgentEvalOpsError(
      'INFRA_FAILURE',
      `monitor mode is not complete in this build: ${name} (${where}) is missing`,
      { hint: 'Use a release of agentevalops that has monitor mode.' },
    )
  }
}
