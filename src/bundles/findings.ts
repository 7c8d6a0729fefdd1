/** One problem found in a bundle: the file it is in (relative to the bundle) and what is wrong. */
export interface Finding {
  file: string
  message: string
}

const DEFAULT_CAP = 20

/**
 * Collects findings, capping each category: a corrupted million-line trace should produce a readable list, not a
 * million lines.
 */
export class FindingList {
  private readonly items: Finding[] = []
  private readonly perCategory = new Map<string, { count: number; file: string; label: string }>()

  constructor(private readonly cap = DEFAULT_CAP) {}

  add(file: string, message: string, category?: { key: string; label: string }): void {
    if (category) {
      const seen = this.perCategory.get(category.key) ?? { count: 0, file, label: category.label }
      seen.count += 1
      this.perCategory.set(category.key, seen)
      if (seen.count > this.cap) return
    }
    this.items.push({ file, message })
  }

  get size(): number {
    return this.items.length
  }

  toArray(): Finding[] {
    const more: Finding[] = []
    for (const { count, file, label } of this.perCategory.values()) {
      if (count > this.cap) more.push({ file, message: `… and ${count - this.cap} more ${label}` })
    }
    return [...this.items, ...more]
  }
}

interface IssueLike {
  readonly path: readonly PropertyKey[]
  readonly message: string
}

/** A zod error as one short line: the first few issues with their paths. */
export function describeIssues(issues: readonly IssueLike[], max = 3): string {
  const shown = issues.slice(0, max).map((issue) => {
    const path = formatPath(issue.path)
    return path ? `${path}: ${issue.message}` : issue.message
  })
  const rest = issues.length > max ? `; and ${issues.length - max} more` : ''
  return shown.join('; ') + rest
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else out += out ? `.${String(key)}` : String(key)
  }
  return out
}

export function formatFindings(findings: readonly Finding[], max = 20): string {
  const lines = findings.slice(0, max).map((f) => `${f.file}: ${f.message}`)
  if (findings.length > max) lines.push(`… and ${findings.length - max} more`)
  return lines.join('\n')
}
