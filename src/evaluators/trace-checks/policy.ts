import type { TraceEvent } from '../../core/index.ts'
import { ofKind, type CheckResult } from './result.ts'

/** Finding messages, when the verdict event carries them: they say why, the step only says where. */
function findingsOf(payload: Record<string, unknown>): string[] {
  const findings = payload.findings
  if (!Array.isArray(findings)) return []
  return findings.flatMap((f: unknown) =>
    f && typeof f === 'object' && typeof (f as { message?: unknown }).message === 'string'
      ? [(f as { message: string }).message]
      : [],
  )
}

/** Passes when no `policy.verdict` event is a FAIL (WARN is reported, not failed). */
export function checkPolicyPasses(events: readonly TraceEvent[]): CheckResult {
  const verdicts = ofKind(events, 'policy.verdict')
  const failed = verdicts.filter((v) => v.payload.verdict === 'FAIL')
  if (failed.length === 0) {
    return { pass: true, message: `no policy check failed (${verdicts.length} verdicts)`, steps: [] }
  }
  const message = failed
    .map((v) => {
      const findings = findingsOf(v.payload)
      return `policy "${v.payload.checkerId}" failed at step ${v.step}${findings.length ? `: ${findings.join('; ')}` : ''}`
    })
    .join('; ')
  return { pass: false, message, steps: failed.map((v) => v.step) }
}
