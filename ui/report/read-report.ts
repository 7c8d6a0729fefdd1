import type { PageData, TrialData } from '../../src/reports/html/page-data.ts'

/** A task as the page opens it: its trials as indices into Report.trials, by trial number. */
export interface LinkedTask {
  key: string
  line: string
  trials: number[]
}

/** What the page draws: the run part, every trial in the order the run wrote them, and each task's trials. */
export interface Report {
  data: PageData
  trials: TrialData[]
  tasks: LinkedTask[]
}

/**
 * The report from its document: the `data` block (PageData) and the rows blocks (`script.rows`, each a JSON array
 * of TrialData), in document order, as src/reports/html/rows-blocks.ts writes them.
 */
export function readReport(doc: Document): Report {
  const block = doc.getElementById('data')
  if (!block) throw new Error('the report has no data block (#data)')
  const data = JSON.parse(block.textContent ?? '') as PageData
  const trials: TrialData[] = []
  for (const rows of doc.querySelectorAll('script.rows')) {
    const parsed = JSON.parse(rows.textContent ?? '') as TrialData[]
    for (const trial of parsed) trials.push(trial)
  }
  return { data, trials, tasks: linkTrials(data, trials) }
}

/** Each task lists its trials by trial number; a trial whose task the summary lacks still gets a task to open. */
export function linkTrials(data: PageData, trials: readonly TrialData[]): LinkedTask[] {
  const tasks: LinkedTask[] = data.tasks.map((t) => ({ key: t.key, line: t.line, trials: [] }))
  const byKey = new Map(tasks.map((t, i) => [t.key, i]))
  trials.forEach((trial, ti) => {
    let index = byKey.get(trial.task)
    if (index === undefined) {
      index = tasks.push({ key: trial.task, line: '—', trials: [] }) - 1
      byKey.set(trial.task, index)
    }
    tasks[index]!.trials.push(ti)
  })
  for (const task of tasks) task.trials.sort((a, b) => trials[a]!.trial - trials[b]!.trial || a - b)
  return tasks
}
