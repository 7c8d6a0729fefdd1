import type { CheckName } from './checks.ts'

/** One problem found in a bundle: the check that found it, the file it is in (relative to the bundle), what is wrong. */
export interface Finding {
  check: CheckName
  file: string
  message: string
}

/** A group of like findings of which only the first few are listed, e.g. the invalid lines of a trace. */
export interface FindingCategory {
  key: string
  /** Plural noun phrase for the summary line: "… and 12 more <label>". */
  label: string
}

const DEFAULT_CAP = 20

/**
 * Collects findings, capping each category: a corrupted million-line trace should produce a readable list, not a
 * million lines.
 */
export class FindingList {
  private readonly items: Finding[] = []
  private readonly perCategory = new Map<
    string,
    { count: number; check: CheckName; file: string; label: string }
  >()

  constructor(private readonly cap = DEFAULT_CAP) {}

  add(check: CheckName, file: string, message: string, category?: FindingCategory): void {
    if (category) {
      const seen = this.perCategory.get(category.key) ?? { count: 0, check, file, label: category.label }
      seen.count += 1
      this.perCategory.set(category.key, seen)
      if (seen.count > this.cap) return
    }
    this.items.push({ check, file, message })
  }

  get size(): number {
    return this.items.length
  }

  toArray(): Finding[] {
    const more: Finding[] = []
    for (const { count, check, file, label } of this.perCategory.values()) {
      if (count > this.cap) more.push({ check, file, message: `… and ${count - this.cap} more ${label}` })
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

const MAX_PATH_CHARS = 200

function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else out += out ? `.${String(key)}` : String(key)
  }
  // Keys come from the file: a hostile one must not turn a one-line finding into megabytes.
  return out.length > MAX_PATH_CHARS ? `${out.slice(0, MAX_PATH_CHARS)}…` : out
}

const MAX_QUOTED_CHARS = 120

/** A value from a bundle quoted for a message, shortened: ids and paths of a damaged bundle can be any length. */
export function quote(value: string): string {
  if (value.length <= MAX_QUOTED_CHARS) return JSON.stringify(value)
  return `${JSON.stringify(value.slice(0, MAX_QUOTED_CHARS))}… (${value.length} characters)`
}

/** The same shortening for a value shown unquoted. */
export function clip(value: string): string {
  if (value.length <= MAX_QUOTED_CHARS) return value
  return `${value.slice(0, MAX_QUOTED_CHARS)}… (${value.length} characters)`
}

export function formatFindings(findings: readonly Finding[], max = 20): string {
  const lines = findings.slice(0, max).map((f) => `${f.file}: ${f.message}`)
  if (findings.length > max) lines.push(`… and ${findings.length - max} more`)
  return lines.join('\n')
}
