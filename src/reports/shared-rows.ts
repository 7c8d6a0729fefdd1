/**
 * At most `max` of `rows`, in their order, taken from each group (benchmark) in turn: a benchmark that fails
 * everything must not hide another's few failures when a listing is capped.
 */
export function sharedOut<T>(rows: readonly T[], groupOf: (row: T) => string, max: number): T[] {
  if (rows.length <= max) return [...rows]
  const queues = new Map<string, number[]>()
  rows.forEach((row, i) => {
    const queue = queues.get(groupOf(row)) ?? []
    queue.push(i)
    queues.set(groupOf(row), queue)
  })
  const taken: number[] = []
  while (taken.length < max) {
    for (const queue of queues.values())
      if (queue.length > 0 && taken.length < max) taken.push(queue.shift()!)
  }
  return taken.sort((a, b) => a - b).map((i) => rows[i]!)
}
