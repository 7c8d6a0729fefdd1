import type { EvaluatorFinding, EvaluatorScore, Redactor, TrialRecord } from '../src/core/index.ts'
import { classifyOutcome } from '../src/engine/index.ts'

/** The evaluator id of the score that carries a trial's `assert` callback: every assertion its case made. */
export const ASSERT_EVALUATOR_ID = 'assert'

/**
 * Where the trace matchers put the steps a failure cites, in the `meta` of their result: Vitest carries it onto the
 * thrown error (and onto an `expect.soft` failure), so the record cites the steps without reading the message.
 */
export const ASSERTION_STEPS_META_KEY = 'agentevalopsSteps'

/** Longest message kept per failed assertion: a record stays small, and Vitest's own output has the whole one. */
const MAX_MESSAGE_CHARS = 2000

/** One assertion of a case that did not hold. */
export interface AssertionFailure {
  /** `assertion` for a failed expect or matcher; `threw` for any other error the callback threw. */
  type: 'assertion' | 'threw'
  message: string
  steps: number[]
}

/** What running a case's `assert` callback found: its failures, and the error to rethrow (a non-soft failure). */
export interface AssertionRun {
  failures: AssertionFailure[]
  thrown: { error: unknown } | undefined
  latencyMs: number
}

/** The part of Vitest's running test that `expect.soft` writes its failures to. */
interface RunningTest {
  result?: { errors?: unknown[] }
}

/**
 * Runs `assert` and collects every failure it made: the error it threw, and the `expect.soft` failures Vitest added
 * to the case meanwhile (which do not throw, yet fail the case).
 */
export async function runAssertions(assert: () => unknown, test: RunningTest): Promise<AssertionRun> {
  const softBefore = test.result?.errors?.length ?? 0
  const started = performance.now()
  let thrown: AssertionRun['thrown']
  try {
    await assert()
  } catch (error) {
    thrown = { error }
  }
  const latencyMs = performance.now() - started
  const soft = (test.result?.errors ?? []).slice(softBefore)
  const failures = [...soft, ...(thrown ? [thrown.error] : [])].map(failureOf)
  return { failures, thrown, latencyMs }
}

function failureOf(error: unknown): AssertionFailure {
  const e = (error ?? {}) as { name?: unknown; message?: unknown; __vitest_error_context__?: unknown }
  const name = typeof e.name === 'string' ? e.name : ''
  const message = typeof e.message === 'string' ? e.message : String(error)
  // JestExtendError (a failed custom matcher) is a plain Error; chai's is an AssertionError. Anything else is the
  // callback itself going wrong, and its type helps whoever reads the record.
  const assertion = name === 'AssertionError' || name === 'Error' || e.__vitest_error_context__ !== undefined
  return {
    type: assertion ? 'assertion' : 'threw',
    message: assertion || name === '' ? message : `${name}: ${message}`,
    steps: stepsOf(e.__vitest_error_context__),
  }
}

function stepsOf(context: unknown): number[] {
  const meta = (context as { meta?: Record<string, unknown> } | undefined)?.meta
  const steps = meta?.[ASSERTION_STEPS_META_KEY]
  if (!Array.isArray(steps)) return []
  return steps.filter((s): s is number => Number.isInteger(s) && s >= 0)
}

function clipped(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text
}

/**
 * The record with its `assert` score: 1 when every assertion held, 0 with one finding per failure (its message and
 * the steps it cites) otherwise. A trial that passed everything else fails on a failed assertion, so the bundle, the
 * gate and Vitest agree. A score left by an earlier run (a resumed trial) is replaced, and the outcome it decided is
 * decided again.
 */
export function withAssertScore(
  record: TrialRecord,
  run: Pick<AssertionRun, 'failures' | 'latencyMs'>,
  redactor: Redactor,
): TrialRecord {
  const base = withoutAssertScore(record)
  const findings: EvaluatorFinding[] = run.failures.map((f) => ({
    type: f.type,
    message: clipped(redactor.string(f.message)),
    citations: f.steps,
  }))
  const failed = findings.length > 0
  const score: EvaluatorScore = {
    evaluatorId: ASSERT_EVALUATOR_ID,
    kind: 'deterministic',
    score: failed ? 0 : 1,
    passed: !failed,
    costUsd: 0,
    latencyMs: run.latencyMs,
    explanation: failed
      ? findings.map((f) => f.message).join('\n')
      : 'every assertion of the assert callback held',
    citations: [...new Set(findings.flatMap((f) => f.citations))].sort((a, b) => a - b),
    findings,
    error: null,
  }
  return reclassified({ ...base, scores: [...base.scores, score] })
}

/** The record as the engine made it, without an `assert` score an earlier run of the trial left in it. */
export function withoutAssertScore(record: TrialRecord): TrialRecord {
  if (!record.scores.some((s) => s.evaluatorId === ASSERT_EVALUATOR_ID)) return record
  return reclassified({
    ...record,
    scores: record.scores.filter((s) => s.evaluatorId !== ASSERT_EVALUATOR_ID),
  })
}

/**
 * Scores decide between `passed` and `failed` only: every other outcome (a limit, a crash, a policy violation) is a
 * more serious cause that an assertion does not change.
 */
function reclassified(record: TrialRecord): TrialRecord {
  if (record.outcome !== 'passed' && record.outcome !== 'failed') return record
  const outcome = classifyOutcome({
    result: record.result,
    scores: record.scores,
    verdicts: record.verdicts,
    harnessFailed: false,
  })
  return { ...record, outcome, passed: outcome === 'passed' }
}
