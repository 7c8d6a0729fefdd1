/*
 * "Did you mean": the nearest candidate within a small edit distance, for errors on a mistyped id or option.
 */

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost))
    }
    prev = row
  }
  return prev[b.length]!
}

/**
 * The closest candidate, if close enough to be a typo. With `foldCase`, `caseInsensitive` matches
 * `case_insensitive` (camelCase written where the config uses snake_case).
 */
export function closest(word: string, candidates: readonly string[], foldCase = false): string | undefined {
  const norm = (s: string) => (foldCase ? s.replace(/[_-]/g, '').toLowerCase() : s)
  const w = norm(word)
  let best: { candidate: string; distance: number } | undefined
  for (const candidate of candidates) {
    const distance = editDistance(w, norm(candidate))
    if (best === undefined || distance < best.distance) best = { candidate, distance }
  }
  if (!best || best.candidate === word) return undefined
  const allowed = Math.max(1, Math.min(3, Math.floor(word.length / 3)))
  return best.distance <= allowed ? best.candidate : undefined
}
