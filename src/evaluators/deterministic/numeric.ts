import { AgentEvalOpsError, type Evaluator, type TaskSpec } from '../../core/index.ts'
import { quote, scoreAnswer, type Comparison } from './answer.ts'
import { parseExpected, requireExpected } from './expectation.ts'

export interface NumericTolerance {
  /** Largest allowed |answer − expected| (default 0). */
  tolerance?: number
  /** Largest allowed |answer − expected| / |expected|; a pass on either tolerance passes. */
  relativeTolerance?: number
}

export interface NumericMatchOptions extends NumericTolerance {
  id?: string
  /** Fixed expected number; otherwise the task's `{ number, tolerance?, relativeTolerance? }` or numeric string. */
  expected?: number
}

// Thousands separators are allowed only in groups of three, so "1,2" stays two numbers and "1,234" is one.
const NUMBER = /[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+(?:[eE][-+]?\d+)?/g

/**
 * The number an answer gives: the whole answer when it is one number, else the last number in it. Agents state
 * the result after their working ("… so the total is 42"), which is why the last one is taken, as GSM8K graders do.
 */
export function extractNumber(answer: string): { value: number; text: string } | undefined {
  const whole = answer.trim()
  if (whole !== '' && Number.isFinite(Number(whole))) return { value: Number(whole), text: whole }
  const last = answer.match(NUMBER)?.at(-1)
  if (last === undefined) return undefined
  const value = Number(last.replaceAll(',', ''))
  return Number.isFinite(value) ? { value, text: last } : undefined
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

export function compareNumber(answer: string, expected: number, t: NumericTolerance): Comparison {
  const found = extractNumber(answer)
  if (found === undefined) return { passed: false, explanation: `no number in the answer ${quote(answer)}` }
  const diff = Math.abs(found.value - expected)
  const absolute = t.tolerance ?? 0
  // A hair of slack for binary floats: 0.1 + 0.2 must equal 0.3 at tolerance 0.
  const slack = 1e-12 * Math.max(1, Math.abs(expected))
  const relativeOk =
    t.relativeTolerance !== undefined && diff <= t.relativeTolerance * Math.abs(expected) + slack
  const passed = diff <= absolute + slack || relativeOk
  const within = [
    `±${absolute}`,
    ...(t.relativeTolerance === undefined ? [] : [`±${t.relativeTolerance * 100}%`]),
  ].join(' or ')
  return {
    passed,
    explanation: passed
      ? `answer ${found.text} is within ${within} of ${expected}`
      : `expected ${expected} (${within}), got ${found.text} (off by ${diff})`,
  }
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
