import { canonicalJson, type EvaluatorFinding, type JsonValue } from '../../core/index.ts'
import type { CheckResult } from '../trace-checks/result.ts'

/** A trace check that also says, finding by finding, what is wrong and where. */
export type CheckWithFindings = CheckResult & { findings: EvaluatorFinding[] }

/** Sorted, each step once: the union of the findings' citations. */
export function citedSteps(findings: readonly EvaluatorFinding[]): number[] {
  return uniqueSorted(findings.flatMap((f) => f.citations))
}

export function uniqueSorted(steps: readonly number[]): number[] {
  return [...new Set(steps)].sort((a, b) => a - b)
}

const MAX_ARGS = 80

/** Canonical JSON, cut short: a message names a call, it does not reproduce a huge payload. */
export function showArgs(args: JsonValue | undefined): string {
  if (args === undefined) return '(any arguments)'
  const text = canonicalJson(args)
  return text.length > MAX_ARGS ? `${text.slice(0, MAX_ARGS)}… (${text.length} chars)` : text
}

export function showCall(tool: string, args: JsonValue | undefined): string {
  return `${tool} ${showArgs(args)}`
}

/** "1 call", "3 calls". */
export function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}
