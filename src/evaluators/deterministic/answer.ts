import { finalAnswerSteps, type Comparison, type EvaluatorOutput, type TrialView } from '../../core/index.ts'

export type AnswerScore = EvaluatorOutput

/** Scores the trial's final answer with `compare`; a missing answer fails without consulting it. */
export function scoreAnswer(view: TrialView, compare: (answer: string) => Comparison): AnswerScore {
  const answer = view.result.finalAnswer
  const citations = finalAnswerSteps(view.events)
  if (answer === null)
    return { score: 0, passed: false, costUsd: 0, explanation: 'no final answer', citations }
  const { passed, explanation } = compare(answer)
  return { score: passed ? 1 : 0, passed, costUsd: 0, explanation, citations }
}
