import type { z } from 'zod'

type Path = readonly PropertyKey[]

/** `tools[0].input_schema`, `metadata["my key"]`. */
export function formatPath(path: Path): string {
  let out = ''
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`
    else if (/^[A-Za-z_][\w-]*$/.test(String(seg))) out += out ? `.${String(seg)}` : String(seg)
    else out += `[${JSON.stringify(String(seg))}]`
  }
  return out
}

export function valueAt(value: unknown, path: Path): unknown {
  let v = value
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined
    v = (v as Record<PropertyKey, unknown>)[key]
  }
  return v
}

/**
 * One zod issue in a few plain words; `input` is the value that was parsed (to tell "missing" from "wrong"), `noun`
 * what its keys are called (`unknown option "limt"`).
 */
export function describeIssue(issue: z.core.$ZodIssue, input: unknown, noun = 'key'): string {
  const at = formatPath(issue.path)
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => JSON.stringify(k)).join(', ')
    return `unknown ${noun}${issue.keys.length > 1 ? 's' : ''} ${keys}${at ? ` in ${at}` : ''}`
  }
  const value = valueAt(input, issue.path)
  // A discriminated union's issue lists the discriminator's values (zod 4 adds them; its types do not say so).
  const choices = (issue as { options?: unknown }).options
  if (issue.code === 'invalid_union' && Array.isArray(choices)) {
    const options = choices.map(String).join(', ')
    return value === undefined
      ? `missing ${at} (one of ${options})`
      : `${at} must be one of ${options}, got ${JSON.stringify(value)}`
  }
  if (issue.code === 'invalid_type' && value === undefined)
    return noun === 'key' ? `missing ${at}` : `missing ${noun} ${at}`
  return `${at || 'value'}: ${issue.message.replace(/^Invalid input: /, '')}`
}

/** Issues in the order a reader should fix them: an unknown key first (a typo'd key also makes the real one "missing"). */
export function orderIssues(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return [...issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  )
}
