import { sha256 } from '../../core/index.ts'

/**
 * A score's stable id: sha256 (hex) of the judged trace or span id, the evaluator's identifier and its version
 * (MonitorEvaluatorSpec.version), joined by NUL. A rerun of the same window with the same evaluators gives the same
 * ids, so sinks that take ids (Langfuse, the ledger) create nothing twice.
 */
export function scoreId(targetId: string, identifier: string, version: string): string {
  return sha256(`${targetId}\0${identifier}\0${version}`)
}
