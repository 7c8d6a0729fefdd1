import { AgentEvalOpsError } from '../../core/index.ts'

export const TRACE_QUALITY_FINDING_TYPES = [
  'repeated_call',
  'cycle',
  'redundant_call',
  'retry_without_change',
  'dead_end',
  'hallucinated_tool_result',
] as const
export type TraceQualityFindingType = (typeof TRACE_QUALITY_FINDING_TYPES)[number]

/**
 * Finding types that fail the trial by default. A redundant call or an ignored result wastes effort but can still
 * end in a right answer, so those only lower the score.
 */
export const DEFAULT_FAIL_ON: readonly TraceQualityFindingType[] = [
  'repeated_call',
  'cycle',
  'retry_without_change',
  'hallucinated_tool_result',
]

export interface TraceQualityOptions {
  /** How many calls of one tool with the same (canonical JSON) arguments make a `repeated_call` (default 3, ≥ 2). */
  minRepeats?: number
  /** Longest cycle looked for, in calls (default 4, ≥ 2). The cost of the cycle search grows with it. */
  maxCycleLength?: number
  /**
   * How many times in a row a block of calls must occur, counting the first, to be a `cycle` (default 3, ≥ 2):
   * A,B,A,B,A,B is a 2-call cycle occurring 3 times.
   */
  minCycleRepeats?: number
  /**
   * Tools whose identical calls are `redundant_call`s. Default: every tool, since most agent tools are reads; list
   * them when some tools are not (a clock, a queue) so their repeats are not blamed.
   */
  idempotentTools?: readonly string[]
  /** Finding types that fail the trial (default: repeated_call, cycle, retry_without_change, hallucinated_tool_result). */
  failOn?: readonly TraceQualityFindingType[]
}

export interface ResolvedOptions {
  minRepeats: number
  maxCycleLength: number
  minCycleRepeats: number
  /** `null`: every tool counts as idempotent. */
  idempotentTools: ReadonlySet<string> | null
  failOn: ReadonlySet<TraceQualityFindingType>
}

const OPTION_KEYS = ['minRepeats', 'maxCycleLength', 'minCycleRepeats', 'idempotentTools', 'failOn'] as const

function invalid(where: string, message: string, hint: string): AgentEvalOpsError {
  return new AgentEvalOpsError('CONFIG_INVALID', `${where}: ${message}`, { hint })
}

function integerAtLeast(where: string, name: string, value: unknown, min: number, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw invalid(
      where,
      `${name} must be an integer of at least ${min}, got ${JSON.stringify(value)}`,
      `Leave it out to use the default (${fallback}).`,
    )
  }
  return value
}

function stringList(where: string, name: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) {
    throw invalid(where, `${name} must be an array of strings`, `e.g. ${name}: ['read_file', 'search'].`)
  }
  return value
}

/**
 * Checks the options once, up front: a typo or a nonsensical threshold is a configuration error, not something to
 * discover as odd scores after a long run. `extraKeys` are keys the caller handles itself (an evaluator's `id`).
 */
export function resolveOptions(
  options: unknown,
  where: string,
  extraKeys: readonly string[] = [],
): ResolvedOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw invalid(
      where,
      'options must be an object',
      'Pass e.g. { minRepeats: 3 }, or nothing for the defaults.',
    )
  }
  const known = new Set<string>([...OPTION_KEYS, ...extraKeys])
  const unknown = Object.keys(options).filter((k) => !known.has(k))
  if (unknown.length > 0) {
    throw invalid(
      where,
      `unknown option${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => `"${k}"`).join(', ')}`,
      `Known options: ${[...known].join(', ')}.`,
    )
  }
  const o = options as Record<(typeof OPTION_KEYS)[number], unknown>
  const minRepeats = integerAtLeast(where, 'minRepeats', o.minRepeats, 2, 3)
  const maxCycleLength = integerAtLeast(where, 'maxCycleLength', o.maxCycleLength, 2, 4)
  const minCycleRepeats = integerAtLeast(where, 'minCycleRepeats', o.minCycleRepeats, 2, 3)
  const idempotent = stringList(where, 'idempotentTools', o.idempotentTools)
  const failOn = stringList(where, 'failOn', o.failOn) ?? DEFAULT_FAIL_ON
  const types = new Set<string>(TRACE_QUALITY_FINDING_TYPES)
  const bad = failOn.filter((t) => !types.has(t))
  if (bad.length > 0) {
    throw invalid(
      where,
      `failOn names unknown finding types ${bad.map((t) => `"${t}"`).join(', ')}`,
      `Finding types: ${TRACE_QUALITY_FINDING_TYPES.join(', ')}.`,
    )
  }
  return {
    minRepeats,
    maxCycleLength,
    minCycleRepeats,
    idempotentTools: idempotent ? new Set(idempotent) : null,
    failOn: new Set(failOn as TraceQualityFindingType[]),
  }
}
