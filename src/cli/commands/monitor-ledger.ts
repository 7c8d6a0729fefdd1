import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { readBundle, type Bundle } from '../../bundles/index.ts'
import { AgentEvalOpsError, errorMessage, type MonitorRunInfo } from '../../core/index.ts'
import { openLedger, type ScoredTraceLedger } from '../../monitor/index.ts'
import { monitorConfigHash } from './monitor-bundle.ts'

/**
 * `--ledger <file|bundle>`: a ledger file (read, then appended to), or the bundle of an earlier window, whose
 * trials are the traces it scored. A bundle is only read: the window written now is the next run's ledger. One of
 * another monitor or scored with other evaluators skips nothing (with a warning), as a ledger line of theirs would.
 */
export async function openLedgerArgument(
  path: string,
  key: { monitorId: string; evaluatorsKey: string; levels: MonitorRunInfo['levels'] },
  warn: (line: string) => void,
): Promise<ScoredTraceLedger> {
  const full = resolve(path)
  const isFolder = (await stat(full).catch(() => undefined))?.isDirectory() ?? false
  if (!isFolder) return openLedger(full, key, warn)
  let bundle: Bundle
  try {
    bundle = await readBundle(full)
  } catch (e) {
    throw new AgentEvalOpsError(
      'USAGE',
      `--ledger: ${path} is a folder but not a valid bundle: ${errorMessage(e)}`,
    )
  }
  const scored = new Set<string>()
  const { metadata } = bundle
  if (metadata.status !== 'monitor' || metadata.monitor?.monitorId !== key.monitorId)
    warn(`--ledger ${path} is not a window of monitor ${key.monitorId}: no trace is skipped`)
  else if (metadata.configHash !== monitorConfigHash(key.monitorId, key.evaluatorsKey, key.levels))
    warn(`--ledger ${path} was scored with other evaluators: no trace is skipped`)
  else for (const trial of bundle.scores.trials) scored.add(trial.taskId)
  return {
    path: full,
    has: (traceId) => scored.has(traceId),
    size: scored.size,
    record: async () => undefined,
  }
}
