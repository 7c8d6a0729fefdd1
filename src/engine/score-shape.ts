import { EVALUATOR_KINDS, type EvaluatorFinding, type EvaluatorScore } from '../core/index.ts'

/**
 * A hand-written stand-in for `EvaluatorScore.safeParse` on the engine's hot path (one call per evaluator per trial):
 * zod costs more than the evaluators of a typical run. One-sided, like src/bundles/trace-event-shape.ts: it returns
 * the parsed score only for a value the schema accepts, built as the schema builds it (same keys, same order,
 * defaults filled in, unknown keys dropped), and undefined for anything it is not sure of; the caller then asks the
 * schema, which decides and words the error. test/engine/score-shape.test.ts holds it against the schema.
 *
 * `value` is the fresh object the engine spread the evaluator's answer into, so its own keys are read once here.
 */
export function fastEvaluatorScore(value: Record<string, unknown>): EvaluatorScore | undefined {
  const { evaluatorId, kind, score, passed, confidence, costUsd, latencyMs, explanation, error } = value
  if (typeof evaluatorId !== 'string' || evaluatorId.length === 0) return undefined
  if (typeof kind !== 'string' || !KINDS.has(kind)) return undefined
  if (!isUnit(score) || typeof passed !== 'boolean') return undefined
  // An own key holding undefined stays in zod's output as a key: rare, so left to zod.
  if (confidence === undefined ? Object.hasOwn(value, 'confidence') : !isUnit(confidence)) return undefined
  if (costUsd !== undefined && !isNonNegative(costUsd)) return undefined
  if (!isNonNegative(latencyMs) || typeof explanation !== 'string') return undefined
  // The engine sets `error` to null; a thrown error has a schema of its own and is rare: both left to zod.
  if (error !== null || value['thrown'] !== undefined || Object.hasOwn(value, 'thrown')) return undefined
  const citations = counts(value['citations'])
  const findings = findingsOf(value['findings'])
  if (citations === undefined || findings === undefined) return undefined
  const checkedKind = kind as EvaluatorScore['kind']
  // Two literals rather than a spread: the key order is zod's (shape order) either way, and this is the hot path.
  if (isUnit(confidence)) {
    return {
      evaluatorId,
      kind: checkedKind,
      score,
      passed,
      confidence,
      costUsd: costUsd ?? 0,
      latencyMs,
      explanation,
      citations,
      findings,
      error: null,
    }
  }
  return {
    evaluatorId,
    kind: checkedKind,
    score,
    passed,
    costUsd: costUsd ?? 0,
    latencyMs,
    explanation,
    citations,
    findings,
    error: null,
  }
}

const KINDS: ReadonlySet<string> = new Set(EVALUATOR_KINDS)

function findingsOf(value: unknown): EvaluatorFinding[] | undefined {
  if (value === undefined) return []
  if (!Array.isArray(value)) return undefined
  const out: EvaluatorFinding[] = []
  for (let i = 0; i < value.length; i++) {
    const finding: unknown = value[i]
    if (typeof finding !== 'object' || finding === null || Array.isArray(finding)) return undefined
    const { type, message, citations: raw } = finding as Record<string, unknown>
    if (typeof type !== 'string' || type.length === 0 || typeof message !== 'string') return undefined
    const citations = counts(raw)
    if (citations === undefined) return undefined
    out.push({ type, message, citations })
  }
  return out
}

/** A fresh array, as zod returns one; holes and -0 (which zod would keep or word differently) go to zod. */
function counts(value: unknown): number[] | undefined {
  if (value === undefined) return []
  if (!Array.isArray(value)) return undefined
  const out: number[] = []
  for (let i = 0; i < value.length; i++) {
    const n: unknown = value[i]
    if (!Number.isSafeInteger(n) || (n as number) < 0 || Object.is(n, -0)) return undefined
    out.push(n as number)
  }
  return out
}

function isUnit(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && value <= 1 && !Object.is(value, -0)
}

function isNonNegative(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && !Object.is(value, -0)
}
