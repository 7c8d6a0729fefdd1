import { safeFileStem } from '../core/index.ts'

/** File name of one trial's trace: the task's safe stem (see safeFileStem) and the trial number. */
export function traceFileName(taskId: string, trial: number): string {
  return `${safeFileStem(taskId)}.t${trial}.jsonl`
}
