import { AgentEvalOpsError, type PolicyChecker, type PolicyFinding } from '../../core/index.ts'

export interface ToolAccessOptions {
  /** When given, only these tools may be called. */
  allow?: readonly string[]
  /** Never to be called; wins over `allow`. */
  deny?: readonly string[]
}

/** Fails a trial for every call to a denied tool, or to one outside `allow`: one finding per call, citing its step. */
export function toolAccess(opts: ToolAccessOptions): PolicyChecker {
  if (opts.allow === undefined && opts.deny === undefined) {
    throw new AgentEvalOpsError('CONFIG_INVALID', 'toolAccess: give an allow list, a deny list, or both', {
      hint: 'Without either the checker would pass every trial; remove it instead.',
    })
  }
  const allow = opts.allow === undefined ? undefined : new Set(opts.allow)
  const deny = new Set(opts.deny ?? [])

  function reason(tool: string): string | undefined {
    if (deny.has(tool)) return `tool "${tool}" is denied`
    if (allow && !allow.has(tool))
      return `tool "${tool}" is not in the allow list (${[...allow].join(', ') || 'empty'})`
    return undefined
  }

  return {
    id: 'tool-access',
    check(view) {
      const findings: PolicyFinding[] = []
      for (const e of view.events) {
        if (e.kind !== 'agent.tool_call') continue
        const why = reason(e.payload.tool)
        if (why)
          findings.push({
            severity: 'FAIL',
            message: `${why}; called at step ${e.step}`,
            citations: [e.step],
          })
      }
      return findings.length > 0 ? { verdict: 'FAIL', findings } : { verdict: 'PASS', findings: [] }
    },
  }
}
