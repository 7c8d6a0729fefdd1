import { AgentEvalOpsError, seededRandom, type TaskSpec } from '../../core/index.ts'

/** How the options choose a run's tasks from the dataset (the camelCase of DatasetOptions' selection keys). */
export interface DatasetSelection {
  ids?: readonly string[] | undefined
  category?: string | readonly string[] | undefined
  limit?: number | undefined
  shuffleSeed?: number | undefined
}

/** A few of `values`, quoted, for a hint: `"a", "b", "c", … (12 in all)`. */
function someOf(values: readonly string[], max = 10): string {
  const shown = values.slice(0, max).map((v) => JSON.stringify(v))
  return values.length > max ? `${shown.join(', ')}, … (${values.length} in all)` : shown.join(', ')
}

/** A Fisher–Yates shuffle driven by mulberry32: the same seed gives the same order on every machine. */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed)
  const out = items.slice()
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/**
 * The tasks the selection keeps, in this order: `ids` and `category` filter (keeping file order), `shuffleSeed`
 * shuffles, `limit` keeps the first n. An id or category the dataset does not have is an error (a typo would
 * otherwise quietly run fewer tasks). `file` names the dataset in messages.
 */
export function selectTasks(
  tasks: readonly TaskSpec[],
  selection: DatasetSelection,
  file: string,
): TaskSpec[] {
  let kept = tasks.slice()
  if (selection.ids !== undefined) {
    const known = new Set(tasks.map((t) => t.id))
    const unknown = selection.ids.filter((id) => !known.has(id))
    if (unknown.length > 0) {
      throw new AgentEvalOpsError(
        'DATASET_INVALID',
        `${file}: the ids option names task${unknown.length > 1 ? 's' : ''} the dataset does not have: ${someOf(unknown)}.`,
        { hint: `Its task ids include ${someOf(tasks.map((t) => t.id))}.` },
      )
    }
    const wanted = new Set(selection.ids)
    kept = kept.filter((t) => wanted.has(t.id))
  }
  if (selection.category !== undefined) {
    const wanted = typeof selection.category === 'string' ? [selection.category] : selection.category
    const known = [
      ...new Set(tasks.flatMap((t) => (t.metadata.category === undefined ? [] : [t.metadata.category]))),
    ]
    const unknown = wanted.filter((c) => !known.includes(c))
    if (unknown.length > 0) {
      throw new AgentEvalOpsError(
        'DATASET_INVALID',
        `${file}: the category option names ${unknown.length > 1 ? 'categories' : 'a category'} no task has: ${someOf(unknown)}.`,
        {
          hint:
            known.length > 0
              ? `Its categories are ${someOf(known.sort())}.`
              : 'No task of the dataset has a metadata.category.',
        },
      )
    }
    kept = kept.filter((t) => t.metadata.category !== undefined && wanted.includes(t.metadata.category))
  }
  if (selection.shuffleSeed !== undefined) kept = seededShuffle(kept, selection.shuffleSeed)
  if (selection.limit !== undefined) kept = kept.slice(0, selection.limit)
  return kept
}
