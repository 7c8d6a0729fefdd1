/** `edge(l, r)`: whether left item `l` may be paired with right item `r`. */
export type Edge = (left: number, right: number) => boolean

/**
 * A maximum bipartite matching by augmenting paths (Kuhn). Argument matchers are arbitrary predicates, so pairing
 * each reference call with the first actual call it accepts can strand a later, pickier reference call that needed
 * exactly that one; an augmenting path re-pairs the earlier call instead. Candidates are tried in order, so equal
 * calls pair up in trace order and citations read naturally. Returns left → right.
 */
export function maximumMatching(
  lefts: readonly number[],
  rights: readonly number[],
  edge: Edge,
): Map<number, number> {
  const adjacency = new Map(lefts.map((l) => [l, rights.filter((r) => edge(l, r))]))
  const rightOf = new Map<number, number>()
  const leftOf = new Map<number, number>()

  // Breadth-first and iterative, so a trace with thousands of calls cannot overflow the stack.
  function augment(start: number): void {
    const reachedFrom = new Map<number, number>() // right → the left that reached it
    const queue = [start]
    for (let head = 0; head < queue.length; head++) {
      const l = queue[head]!
      for (const r of adjacency.get(l) ?? []) {
        if (reachedFrom.has(r)) continue
        reachedFrom.set(r, l)
        const owner = leftOf.get(r)
        if (owner !== undefined) {
          queue.push(owner)
          continue
        }
        // A free right: every left on the path back to `start` trades its right for the one that reached it.
        let right: number | undefined = r
        while (right !== undefined) {
          const left = reachedFrom.get(right)!
          const traded = rightOf.get(left)
          rightOf.set(left, right)
          leftOf.set(right, left)
          right = traded
        }
        return
      }
    }
  }

  for (const l of lefts) augment(l)
  return rightOf
}

/**
 * The longest in-order pairing (an LCS under `edge`): the calls that are where the reference expects them. Returns
 * [left, right] index pairs in order.
 */
export function longestOrderedPairing(leftCount: number, rightCount: number, edge: Edge): [number, number][] {
  // best[i][j]: the longest pairing of lefts from i and rights from j.
  const best = Array.from({ length: leftCount + 1 }, () => new Array<number>(rightCount + 1).fill(0))
  for (let i = leftCount - 1; i >= 0; i--) {
    for (let j = rightCount - 1; j >= 0; j--) {
      const skip = Math.max(best[i + 1]![j]!, best[i]![j + 1]!)
      best[i]![j] = edge(i, j) ? Math.max(skip, best[i + 1]![j + 1]! + 1) : skip
    }
  }
  const pairs: [number, number][] = []
  let i = 0
  let j = 0
  while (i < leftCount && j < rightCount) {
    if (edge(i, j) && best[i]![j] === best[i + 1]![j + 1]! + 1) {
      pairs.push([i, j])
      i++
      j++
    } else if (best[i + 1]![j]! >= best[i]![j + 1]!) i++
    else j++
  }
  return pairs
}
