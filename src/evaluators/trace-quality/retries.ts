import { NONE, type Blamed, type TraceModel } from './model.ts'
import { isWriteTool } from './writes.ts'

/**
 * Blind retries: a call that failed, sent again unchanged.
 *
 * - At once: the very next tool call is the same call, made after the error came back. The agent saw it fail and
 *   changed nothing.
 * - At a distance: a later call is the same as the last failed one and fails with the same error, and no
 *   state-changing call (see isWriteTool) went through in between: what came between (a user turn, a `think` step,
 *   reads) changed nothing the call depends on, as the identical error shows. A write in between that did not fail
 *   (the missing file written, a reservation cancelled to free a certificate) is a change, so the retry is not
 *   blind even if it fails again.
 *
 * Calls in `covered` are already blamed by a loop finding and are not blamed twice.
 */
export function detectRetries(m: TraceModel, covered: ReadonlySet<number>): Blamed {
  const found: Blamed = { detected: [], covered: new Set() }
  const blame = (failed: number, retry: number, message: string) => {
    found.covered.add(retry)
    found.detected.push({
      type: 'retry_without_change',
      message,
      citations: [m.callStep[failed]!, m.callStep[retry]!],
      wastedCalls: [retry],
    })
  }
  /** writes[c]: how many state-changing calls before call c did not fail (a write with no result yet may have worked). */
  const writes = new Uint32Array(m.callCount + 1)
  /** Per call key, the latest call of it, when that call failed; NONE when it succeeded or had no result. */
  const lastFailed = new Int32Array(m.distinctCalls).fill(NONE)
  for (let c = 0; c < m.callCount; c++) {
    const result = m.callResult[c]!
    const failedNow = result !== NONE && m.resultIsError[result] === 1
    writes[c + 1] = writes[c]! + (!failedNow && isWriteTool(m.callTool[c]!) ? 1 : 0)

    const key = m.callKey[c]!
    const earlier = lastFailed[key]!
    lastFailed[key] = failedNow ? c : NONE
    if (earlier === NONE || covered.has(c)) continue
    const error = m.callResult[earlier]!
    if (m.resultStep[error]! > m.callStep[c]!) continue
    if (earlier === c - 1) {
      blame(
        earlier,
        c,
        `tool "${m.callTool[c]}" retried at step ${m.callStep[c]} with the same arguments ` +
          `after its call at step ${m.callStep[earlier]} failed (step ${m.resultStep[error]})`,
      )
    } else if (failedNow && m.resultKey[result] === m.resultKey[error] && writes[c] === writes[earlier + 1]) {
      blame(
        earlier,
        c,
        `tool "${m.callTool[c]}" retried at step ${m.callStep[c]} with the same arguments as its call at step ` +
          `${m.callStep[earlier]}, and failed with the same error (steps ${m.resultStep[error]}, ` +
          `${m.resultStep[result]}); nothing changed in between`,
      )
    }
  }
  return found
}
