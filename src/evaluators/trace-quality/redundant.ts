import { NONE, type Detected, type TraceModel } from './model.ts'
import type { ResolvedOptions } from './options.ts'

/**
 * A call identical (tool and canonical arguments) to an earlier one whose non-error result the agent already had,
 * that then brought back that same result (or none): nothing was learned. Deliberately simple: whether anything in
 * between could have changed the answer is not modelled, but a repeat whose result differs is spared, since then
 * something evidently had. With `idempotentTools`, only those tools are considered. Calls in `covered` are already
 * blamed by another finding and are not blamed twice.
 */
export function detectRedundant(
  m: TraceModel,
  opts: ResolvedOptions,
  covered: ReadonlySet<number>,
): Detected[] {
  const detected: Detected[] = []
  /** Per call key, the latest call with a non-error result. */
  const answered = new Int32Array(m.distinctCalls).fill(NONE)
  for (let c = 0; c < m.callCount; c++) {
    if (opts.idempotentTools && !opts.idempotentTools.has(m.callTool[c]!)) continue
    const key = m.callKey[c]!
    const own = m.callResult[c]!
    const earlier = answered[key]!
    if (earlier !== NONE && !covered.has(c)) {
      const known = m.callResult[earlier]!
      const learnedNothing = own === NONE || m.resultKey[own] === m.resultKey[known]
      if (m.resultStep[known]! < m.callStep[c]! && learnedNothing) {
        detected.push({
          type: 'redundant_call',
          message:
            `tool "${m.callTool[c]}" called again at step ${m.callStep[c]} with the same arguments as at step ` +
            `${m.callStep[earlier]}, whose result (step ${m.resultStep[known]}) it already had`,
          citations: [m.callStep[earlier]!, m.callStep[c]!],
          wastedCalls: [c],
        })
      }
    }
    if (own !== NONE && m.resultIsError[own] === 0) answered[key] = c
  }
  return detected
}
