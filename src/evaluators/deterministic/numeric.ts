import {
  AgentEvalOpsError,
  compareNumber,
  type Evaluator,
  type NumericTolerance,
  type TaskSpec,
} from '../../core/index.ts'
import { scoreAnswer } from './answer.ts'
import { parseExpected, requireExpected } from './expectation.ts'

// The number matching itself is shared with the benchmarks' graders (src/core/answer-match.ts).
export { extractNumber, type NumericTolerance } from '../../core/index.ts'

export interface NumericMatchOptions extends NumericTolerance {
  id?: string
  /** Fixed expected number; otherwise the task's `{ number, tolerance?, relativeTolerance? }` or numeric string. */
  expected?: number
}

function checkTolerance(where: string, t: NumericTolerance): NumericTolerance {
  for (const [name, value] of Object.entries(t)) {
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) {
      throw new AgentEvalOpsError('CONFIG_INVALID', `${where}: ${name} must be a number ≥ 0, got ${value}`, {
        hint: 'Tolerances are absolute (tolerance) or relative to the expected value (relativeTolerance).',
      })
    }
  }
  return t
}

function fromTask(task: TaskSpec, id: string): { expected: number } & NumericTolerance {
  const raw = requireExpected(task)
  const expectation = parseExpected(raw)
  if (expectation?.kind === 'number') return expectation
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw.trim()) : NaN
  if (Number.isFinite(value) && !(typeof raw === 'string' && raw.trim() === '')) return { expected: value }
  throw new AgentEvalOpsError(
    'CONFIG_INVALID',
    `evaluator ${JSON.stringify(id)}: task ${JSON.stringify(task.id)} does not expect a number (${JSON.stringify(raw)})`,
    {
      hint: 'Give task.expected as a number, a numeric string, or { number, tolerance?, relativeTolerance? }.',
    },
  )
}

/** Passes when the answer's number is within tolerance of the expected one. */
export function numericMatch(opts: NumericMatchOptions = {}): Evaluator {
  const id = opts.id ?? 'numeric-match'
  const fixed = checkTolerance(id, { tolerance: opts.tolerance, relativeTolerance: opts.relativeTolerance })
  if (opts.expected !== undefined && !Number.isFinite(opts.expected)) {
    throw new AgentEvalOpsError('CONFIG_INVALID', `${id}: expected must be a finite number`)
  }
  return {
    id,
    kind: 'deterministic',
    evaluate(view) {
      const target = opts.expected === undefined ? fromTask(view.task, id) : { expected: opts.expected }
      // Options override what the task says, so one tolerance can be applied to a whole dataset.
      const tolerance = {
        tolerance: fixed.tolerance ?? target.tolerance,
        relativeTolerance: fixed.relativeTolerance ?? target.relativeTolerance,
      }
      return scoreAnswer(view, (answer) => compareNumber(answer, target.expected, tolerance))
    },
  }
}
