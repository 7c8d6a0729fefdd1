import type { TrialData } from '../../src/reports/html/page-data.ts'

/** Step number → who cited it: evaluators, their findings, policy checkers' findings. */
export function citationsOf(trial: TrialData): Map<number, string[]> {
  const cited = new Map<number, string[]>()
  const add = (steps: readonly number[] | undefined, label: string) => {
    for (const step of steps ?? []) {
      const labels = cited.get(step) ?? []
      if (!labels.includes(label)) labels.push(label)
      cited.set(step, labels)
    }
  }
  for (const s of trial.scores) {
    add(s.citations, s.evaluator)
    for (const f of s.findings ?? []) add(f.citations, `${s.evaluator}: ${f.type}`)
  }
  for (const v of trial.verdicts ?? []) {
    for (const f of v.findings ?? []) add(f.citations, `${v.checker}: ${f.type}`)
  }
  return cited
}

/** The id of a step's row: trial index and step, unique in the page. */
export function stepId(ti: number, step: number): string {
  return `s-${ti}-${step}`
}
