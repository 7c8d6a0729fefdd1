/**
 * One walk over a parsed line that answers, for the common case, what parseJsonText's depth check and nonFinitePath
 * would each walk it again for: true when the value is nested at most `maxDepth` levels (counted as deeperThan
 * counts them), every number in it is finite, and no object has a `__proto__` key (which JSON.parse keeps as an own
 * key and schemas treat apart). False means only "look closer": the caller then runs those checks themselves.
 */
export function isPlainValue(value: unknown, maxDepth: number): boolean {
  return walk(value, 1, maxDepth)
}

function walk(node: unknown, depth: number, maxDepth: number): boolean {
  if (typeof node === 'number') return Number.isFinite(node)
  if (typeof node !== 'object' || node === null) return true
  // Recursion is bounded by maxDepth: a deeper document stops here and goes the careful, iterative way.
  if (depth > maxDepth) return false
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      if (!walk(node[i], depth + 1, maxDepth)) return false
    }
    return true
  }
  for (const key in node) {
    if (key === '__proto__') return false
    if (!walk((node as Record<string, unknown>)[key], depth + 1, maxDepth)) return false
  }
  return true
}
