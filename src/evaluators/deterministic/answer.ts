import type { EvaluatorOutput, TraceEvent, TrialView } from '../../core/index.ts'

export type AnswerScore = EvaluatorOutput

/** What a comparison decides; the score, cost and citations are the same for every answer evaluator. */
export interface Comparison {
  passed: boolean
  explanation: string
}

const MAX_QUOTE = 120

/** Quotes a value for an explanation, cut short so one huge answer cannot bloat scores.json. */
export function quote(value: string): string {
  const text = value.length > MAX_QUOTE ? `${value.slice(0, MAX_QUOTE)}… (${value.length} chars)` : value
  return JSON.stringify(text)
}

/** The step of the last final answer: that is the answer the result carries. */
export function finalAnswerSteps(events: readonly TraceEvent[]): number[] {
  const last = events.filter((e) => e.kind === 'agent.final_answer').at(-1)
  return last ? [last.step] : []
}

/** Scores the trial's final answer with `compare`; a missing answer fails without consulting it. */
export function scoreAnswer(view: TrialView, compare: (answer: string) => Comparison): AnswerScore {
  const answer = view.result.finalAnswer
  const citations = finalAnswerSteps(view.events)
  if (answer === null)
    return { score: 0, passed: false, costUsd: 0, explanation: 'no final answer', citations }
  const { passed, explanation } = compare(answer)
  return { score: passed ? 1 : 0, passed, costUsd: 0, explanation, citations }
}
