import {
  EVALUATOR_KINDS,
  EvaluatorScore,
  type EvaluatorKind,
  PolicyVerdict,
  describeThrown,
  errorMessage,
  type ThrownError,
  type Evaluator,
  type EvaluatorContext,
  type PolicyChecker,
  type TrialView,
} from '../core/index.ts'
import { fastEvaluatorScore } from './score-shape.ts'

export interface Judgement<T> {
  items: T[]
  /** One line per evaluator or checker that failed to give a usable answer. */
  failures: string[]
}

const KINDS: ReadonlySet<unknown> = new Set<EvaluatorKind>(EVALUATOR_KINDS)

/** All evaluators at once; each score is timed by the engine and validated, whatever the evaluator claims. */
export async function runEvaluators(
  evaluators: readonly Evaluator[],
  view: TrialView,
  ctx?: EvaluatorContext,
): Promise<Judgement<EvaluatorScore>> {
  const outcomes = await Promise.all(evaluators.map((evaluator) => score(evaluator, view, ctx)))
  return collect(outcomes)
}

export async function runPolicyCheckers(
  checkers: readonly PolicyChecker[],
  view: TrialView,
): Promise<Judgement<PolicyVerdict>> {
  const outcomes = await Promise.all(checkers.map((checker) => check(checker, view)))
  return collect(outcomes)
}

async function score(
  evaluator: Evaluator,
  view: TrialView,
  ctx: EvaluatorContext | undefined,
): Promise<{ item: EvaluatorScore; failure?: string }> {
  const started = performance.now()
  const latencyMs = (): number => Math.round((performance.now() - started) * 1000) / 1000
  const ids = {
    evaluatorId: evaluator.id || '(unnamed evaluator)',
    kind: KINDS.has(evaluator.kind) ? evaluator.kind : 'deterministic',
  }
  let raw: unknown
  try {
    raw = await evaluator.evaluate(view, ctx)
  } catch (e) {
    return failedScore(ids, latencyMs(), `evaluator threw: ${errorMessage(e)}`, describeThrown(e))
  }
  // `error` is the engine's to set: an evaluator that could not judge throws.
  const input: Record<string, unknown> = { ...(raw as object), ...ids, latencyMs: latencyMs(), error: null }
  const fast = fastEvaluatorScore(input)
  if (fast !== undefined) return { item: fast }
  const parsed = EvaluatorScore.safeParse(input)
  if (parsed.success) return { item: parsed.data }
  return failedScore(
    ids,
    latencyMs(),
    `evaluator threw: it returned an invalid score (${firstIssue(parsed.error)})`,
  )
}

/** A score we could not get counts as a failure, never as a pass, and makes the trial an infra failure. */
function failedScore(
  ids: Pick<EvaluatorScore, 'evaluatorId' | 'kind'>,
  latencyMs: number,
  explanation: string,
  thrown?: ThrownError,
): { item: EvaluatorScore; failure: string } {
  const item: EvaluatorScore = {
    ...ids,
    score: 0,
    passed: false,
    costUsd: 0,
    latencyMs,
    explanation,
    citations: [],
    findings: [],
    error: explanation,
    ...(thrown ? { thrown } : {}),
  }
  return { item, failure: `${ids.evaluatorId}: ${explanation}` }
}

async function check(
  checker: PolicyChecker,
  view: TrialView,
): Promise<{ item: PolicyVerdict; failure?: string }> {
  const checkerId = checker.id || '(unnamed checker)'
  let problem: string
  try {
    const parsed = PolicyVerdict.safeParse({ ...(await checker.check(view)), checkerId })
    if (parsed.success) return { item: parsed.data }
    problem = `it returned an invalid verdict (${firstIssue(parsed.error)})`
  } catch (e) {
    problem = errorMessage(e)
  }
  // WARN, not FAIL: the checker found no violation, it just could not look.
  const message = `policy checker threw: ${problem}`
  return {
    item: { checkerId, verdict: 'WARN', findings: [{ message, severity: 'WARN', citations: [] }] },
    failure: `${checkerId}: ${message}`,
  }
}

function collect<T>(outcomes: { item: T; failure?: string }[]): Judgement<T> {
  return {
    items: outcomes.map((o) => o.item),
    failures: outcomes.flatMap((o) => (o.failure === undefined ? [] : [o.failure])),
  }
}

function firstIssue(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0]
  if (!issue) return 'invalid'
  return issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message
}
