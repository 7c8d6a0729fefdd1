import type { EvaluatorFinding } from '../../../src/core/index.ts'
import type { TraceQualityFindingType } from '../../../src/evaluators/trace-quality/index.ts'

/**
 * Hand labels of the public trajectories in test/fixtures/trajectories/ (see its README for their origin). Steps are
 * those of the trace test/support/trajectories.ts makes of each file. Each label was checked by reading the
 * trajectory around the cited steps.
 */
export interface Label {
  type: TraceQualityFindingType
  /** expected: exactly the finding's citations. mustNot: a finding of this type citing any of them is wrong. */
  steps: number[]
  why: string
}

export interface LabelledTrajectory {
  /** Under test/fixtures/trajectories/. */
  file: string
  expected: Label[]
  mustNot: Label[]
}

const redundant = (earlier: number, again: number): Label => ({
  type: 'redundant_call',
  steps: [earlier, again],
  why: 'the same read, with the same arguments, returned the same result the agent already had',
})

const confirmedWrite = (result: number, what: string): Label => ({
  type: 'dead_end',
  steps: [result],
  why: `the successful result of ${what}, which the final answer reports as done`,
})

export const CORPUS: readonly LabelledTrajectory[] = [
  {
    file: 'swe-agent/ctf-BabyEncryption.traj',
    expected: [redundant(1, 19)],
    mustNot: [
      {
        type: 'repeated_call',
        steps: [10, 16, 37, 43],
        why: '`python decrypt.py` re-run after each edit of decrypt.py, with a new output each time (two tracebacks, mojibake, the flag): progress',
      },
    ],
  },
  {
    file: 'swe-agent/ctf-eps.traj',
    expected: [
      {
        type: 'repeated_call',
        steps: [28, 31, 34, 37],
        why: 'the same flag submitted four times, "Wrong flag!" each time',
      },
    ],
    mustNot: [],
  },
  { file: 'swe-agent/humanevalfix-python-0.traj', expected: [], mustNot: [] },
  {
    file: 'swe-agent/pydicom__pydicom-1458.traj',
    expected: [
      {
        type: 'retry_without_change',
        steps: [19, 22],
        why: 'the same edit sent again right after the linter rejected it',
      },
    ],
    mustNot: [],
  },
  {
    file: 'tau-bench/airline-0-3.json',
    expected: [],
    mustNot: [
      {
        type: 'retry_without_change',
        steps: [23, 38],
        why: 'the same booking failed twice on a certificate, but the agent cancelled a reservation in between to free it: a change, not a blind retry',
      },
    ],
  },
  {
    file: 'tau-bench/airline-11-2.json',
    expected: [
      {
        type: 'repeated_call',
        steps: [13, 17, 24],
        why: 'the same booking, three times, "payment amount does not add up" each time',
      },
    ],
    mustNot: [],
  },
  {
    file: 'tau-bench/airline-13-0.json',
    expected: [
      redundant(3, 15),
      {
        type: 'repeated_call',
        steps: [23, 27, 42],
        why: 'the same flight change, three times, "flight HAT030 not available" each time',
      },
      {
        type: 'retry_without_change',
        steps: [37, 48],
        why: 'the same failed flight change sent again after user turns, with the same error',
      },
    ],
    mustNot: [],
  },
  { file: 'tau-bench/airline-13-1.json', expected: [redundant(13, 17)], mustNot: [] },
  {
    file: 'tau-bench/airline-13-2.json',
    expected: [
      {
        type: 'retry_without_change',
        steps: [25, 35],
        why: 'the same failed flight change sent again after a search and user turns, with the same error',
      },
    ],
    mustNot: [],
  },
  {
    file: 'tau-bench/airline-13-3.json',
    expected: [
      {
        type: 'retry_without_change',
        steps: [15, 19],
        why: 'the failed flight change is the very next call again, after a user turn',
      },
    ],
    mustNot: [],
  },
  {
    file: 'tau-bench/airline-14-1.json',
    expected: [],
    mustNot: [confirmedWrite(28, 'update_reservation_baggages')],
  },
  {
    file: 'tau-bench/airline-15-1.json',
    expected: [
      {
        type: 'retry_without_change',
        steps: [15, 19],
        why: 'the failed flight change is the very next call again, after a user turn',
      },
    ],
    mustNot: [],
  },
  { file: 'tau-bench/airline-17-1.json', expected: [redundant(10, 22), redundant(26, 32)], mustNot: [] },
  {
    file: 'tau-bench/airline-2-3.json',
    expected: [],
    mustNot: [confirmedWrite(32, 'update_reservation_flights')],
  },
  { file: 'tau-bench/airline-22-1.json', expected: [redundant(13, 21)], mustNot: [] },
  {
    file: 'tau-bench/airline-23-1.json',
    expected: [
      {
        type: 'retry_without_change',
        steps: [33, 41],
        why: 'the same failed flight change ("gift card balance is not enough") sent again after another attempt and a user turn',
      },
    ],
    mustNot: [],
  },
  {
    file: 'tau-bench/airline-23-3.json',
    expected: [
      redundant(13, 19),
      redundant(15, 21),
      {
        type: 'retry_without_change',
        steps: [41, 49],
        why: 'the same failed flight change ("gift card balance is not enough") sent again after another attempt and a user turn',
      },
    ],
    mustNot: [],
  },
  { file: 'tau-bench/airline-3-1.json', expected: [redundant(19, 39)], mustNot: [] },
  {
    file: 'tau-bench/airline-31-1.json',
    expected: [],
    mustNot: [confirmedWrite(22, 'cancel_reservation ("cancelled"; the answer says "canceled")')],
  },
  {
    file: 'tau-bench/airline-33-0.json',
    expected: [redundant(21, 53), redundant(25, 56), redundant(37, 59), redundant(39, 62)],
    mustNot: [],
  },
  {
    file: 'tau-bench/airline-38-0.json',
    expected: [],
    mustNot: [
      {
        type: 'dead_end',
        steps: [8],
        why: 'the reply right after it says the reservation "includes travel insurance": the result\'s insurance: "yes"',
      },
    ],
  },
  {
    file: 'tau-bench/airline-38-1.json',
    expected: [],
    mustNot: [
      {
        type: 'dead_end',
        steps: [8],
        why: 'the final answer says the reservation "includes travel insurance": the result\'s insurance: "yes"',
      },
    ],
  },
  {
    file: 'tau-bench/airline-4-2.json',
    expected: [],
    mustNot: [confirmedWrite(38, 'update_reservation_baggages')],
  },
  {
    file: 'tau-bench/airline-46-3.json',
    expected: [
      {
        type: 'retry_without_change',
        steps: [37, 52],
        why: 'the same booking sent again after two `think` steps, a calculation and another attempt, failing with the same error',
      },
    ],
    mustNot: [],
  },
  {
    file: 'tau-bench/airline-8-1.json',
    expected: [
      {
        type: 'repeated_call',
        steps: [29, 33, 37],
        why: 'the same booking, three times, "payment amount does not add up" each time',
      },
    ],
    mustNot: [],
  },
  {
    file: 'tau-bench/airline-9-2.json',
    expected: [
      {
        type: 'cycle',
        steps: [48, 50, 52, 54, 56, 58, 60],
        why: 'book_reservation → think, with the same arguments and the same error, four times over',
      },
    ],
    mustNot: [],
  },
]

export interface CorpusScore {
  /** Findings that match an expected label. */
  right: number
  findings: number
  /** Expected labels no finding matched. */
  missed: string[]
  /** Findings no expected label matched, and which mustNot label they hit (if any). */
  wrong: string[]
}

const sameSteps = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((s, i) => s === b[i])

const show = (file: string, f: { type: string; citations?: number[]; steps?: number[] }) =>
  `${file}: ${f.type} [${(f.citations ?? f.steps ?? []).join(', ')}]`

/** Scores an analysis against the labels: how many of its findings are right, and what it missed. */
export function scoreCorpus(findingsOf: (file: string) => readonly EvaluatorFinding[]): CorpusScore {
  const score: CorpusScore = { right: 0, findings: 0, missed: [], wrong: [] }
  for (const t of CORPUS) {
    const findings = findingsOf(t.file)
    score.findings += findings.length
    for (const f of findings) {
      if (t.expected.some((l) => l.type === f.type && sameSteps(l.steps, f.citations))) score.right++
      else {
        const hit = t.mustNot.find((l) => l.type === f.type && l.steps.some((s) => f.citations.includes(s)))
        score.wrong.push(`${show(t.file, f)}${hit ? ` (must not appear: ${hit.why})` : ' (unlabelled)'}`)
      }
    }
    for (const l of t.expected) {
      if (!findings.some((f) => f.type === l.type && sameSteps(l.steps, f.citations))) {
        score.missed.push(show(t.file, l))
      }
    }
  }
  return score
}
