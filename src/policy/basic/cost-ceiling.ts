import {
  AgentEvalOpsError,
  HARNESS_EVENT_KINDS,
  type PolicyChecker,
  type PolicyFinding,
  type TraceEvent,
} from '../../core/index.ts'

export interface CostCeilingOptions {
  maxUsd: number
  /** WARN lets a team watch spend without failing trials over it (default FAIL). */
  verdict?: 'FAIL' | 'WARN'
}

// Evaluator and policy events carry the harness's own cost (an LLM judge), not the agent's spend.
const HARNESS_KINDS = new Set<TraceEvent['kind']>(HARNESS_EVENT_KINDS)

// Float sums like 0.1 + 0.2 must not count as crossing a 0.3 ceiling.
const EPSILON = 1e-9

const usd = (n: number) => `$${n.toFixed(4)}`

/** The step at which the agent's cumulative cost first went over `maxUsd`, and the total spent. */
function crossing(
  events: readonly TraceEvent[],
  maxUsd: number,
): { step: number | undefined; total: number } {
  let total = 0
  let step: number | undefined
  for (const e of [...events].sort((a, b) => a.step - b.step)) {
    if (HARNESS_KINDS.has(e.kind)) continue
    total += e.costDeltaUsd
    if (step === undefined && total > maxUsd + EPSILON) step = e.step
  }
  return { step, total }
}

/** Fails (or warns) a trial whose cumulative cost went over `maxUsd`, citing the step where it did. */
export function costCeiling(opts: CostCeilingOptions): PolicyChecker {
  const { maxUsd, verdict = 'FAIL' } = opts
  if (!Number.isFinite(maxUsd) || maxUsd < 0) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `costCeiling: maxUsd must be a non-negative number, got ${maxUsd}`,
    )
  }
  return {
    id: 'cost-ceiling',
    check(view) {
      const { step, total } = crossing(view.events, maxUsd)
      // The result's total is the engine's own measure; it catches spend a runner reported without events.
      const spent = Math.max(total, view.result.totalCostUsd)
      if (spent <= maxUsd + EPSILON) return { verdict: 'PASS', findings: [] }
      const where = step === undefined ? '' : ` at step ${step}`
      const finding: PolicyFinding = {
        severity: verdict,
        message: `cost crossed the ${usd(maxUsd)} ceiling${where} (total ${usd(spent)})`,
        citations: step === undefined ? [] : [step],
      }
      return { verdict, findings: [finding] }
    },
  }
}
