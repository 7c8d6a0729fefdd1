import type { HumanEvalProblem } from './problems.ts'

/**
 * The completion in an agent's answer. Models often wrap code in a Markdown fence, so the first fenced block is
 * taken when there is one; otherwise the answer as it is. A completion may be the function's body (upstream's
 * form) or the whole function: appended to the prompt, a full `def` simply redefines the stub the prompt ends with.
 */
export function completionFrom(answer: string | null): string {
  if (answer === null) return ''
  const fenced = /```[A-Za-z0-9_+-]*[^\S\n]*\n([\s\S]*?)```/.exec(answer)
  return fenced ? fenced[1]! : answer
}

/** The program upstream's execution runs: prompt + completion + the problem's tests + the call of check(). */
export function checkProgram(
  problem: Pick<HumanEvalProblem, 'prompt' | 'test' | 'entry_point'>,
  completion: string,
): string {
  return `${problem.prompt}${completion}\n${problem.test}\ncheck(${problem.entry_point})\n`
}
