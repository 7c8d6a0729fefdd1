import { NONE, type Blamed, type TraceModel } from './model.ts'

/**
 * A call whose result was an error, and the very next tool call is the same call again, made after the error came
 * back: the agent saw it fail and changed nothing. Only the next call counts; anything in between (writing the
 * missing file, logging in) may be exactly the change that makes the same call succeed. Calls in `covered` are
 * already blamed by a loop finding and are not blamed twice.
 */
export function detectRetries(m: TraceModel, covered: ReadonlySet<number>): Blamed {
  const found: Blamed = { detected: [], covered: new Set() }
  for (let failed = 0; failed + 1 < m.callCount; failed++) {
    const retry = failed + 1
    const result = m.callResult[failed]!
    if (result === NONE || m.resultIsError[result] === 0 || m.resultStep[result]! > m.callStep[retry]!)
      continue
    if (m.callKey[retry] !== m.callKey[failed] || covered.has(retry)) continue
    found.covered.add(retry)
    found.detected.push({
      type: 'retry_without_change',
      message:
        `tool "${m.callTool[retry]}" retried at step ${m.callStep[retry]} with the same arguments ` +
        `after its call at step ${m.callStep[failed]} failed (step ${m.resultStep[result]})`,
      citations: [m.callStep[failed]!, m.callStep[retry]!],
      wastedCalls: [retry],
    })
  }
  return found
}
