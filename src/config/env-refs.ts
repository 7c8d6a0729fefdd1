import { AgentEvalOpsError, type JsonValue } from '../core/index.ts'

/**
 * Environment references in config strings: `${NAME}`, NAME = [A-Z_][A-Z0-9_]*. The loader keeps them as written,
 * so a config, its hash and anything written to disk hold the reference, never the secret. They are expanded at
 * the edge, right before an adapter factory is called. `$${` is an escape: it stands for a literal `${`, whatever
 * follows it (`$${NAME}`, `$${alert(1)}`, `$${}`, a lone `$${`), and what follows is then plain text.
 */

/** The source of one reference, for building other patterns (unanchored, no groups). */
export const ENV_REF_SOURCE = '\\$\\{[A-Z_][A-Z0-9_]*\\}'

// One left-to-right scan, so the checker, the lister and the expander agree on what is escaped: an escape `$${`
// (group 1), or an opening `${` with the name of a well-formed reference (group 2) or without (malformed).
const TOKEN = /(\$\$\{)|\$\{(?:([A-Z_][A-Z0-9_]*)\})?/g

function eachString(value: JsonValue, visit: (s: string) => void): void {
  if (typeof value === 'string') visit(value)
  else if (Array.isArray(value)) value.forEach((v) => eachString(v, visit))
  else if (value !== null && typeof value === 'object')
    Object.values(value).forEach((v) => eachString(v, visit))
}

function mapStrings(value: JsonValue, map: (s: string) => string): JsonValue {
  if (typeof value === 'string') return map(value)
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map))
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, map)]))
  return value
}

/** The names of the environment variables a value refers to, sorted and without repeats. */
export function envRefNames(value: JsonValue): string[] {
  const names = new Set<string>()
  eachString(value, (s) => {
    for (const [, escape, name] of s.matchAll(TOKEN)) if (!escape && name) names.add(name)
  })
  return [...names].sort()
}

/**
 * Why a string's `${…}` is not a well-formed reference (e.g. `${api_key}` or an unclosed `${KEY`), or undefined
 * when every reference in it is well formed.
 */
export function envRefSyntaxError(text: string): string | undefined {
  for (const match of text.matchAll(TOKEN)) {
    if (match[1] || match[2]) continue
    const rest = text.slice(match.index)
    const close = rest.indexOf('}')
    const shown = close >= 0 && close < 40 ? rest.slice(0, close + 1) : `${rest.slice(0, 20)}…`
    return (
      `"${shown}" is not an environment reference: write \${NAME} with NAME in upper-case letters, digits and _` +
      ` (or $\${ for a literal \${)`
    )
  }
  return undefined
}

/**
 * Replaces every `${NAME}` in the strings of `value` (keys are left alone) with the variable's value from `env`.
 * Throws CONFIG_INVALID naming every variable that is unset or empty; values never appear in the message.
 * `where` (e.g. "agent.options") says in the message what was being expanded.
 */
export function expandEnvRefs(value: JsonValue, env: NodeJS.ProcessEnv, where?: string): JsonValue {
  const missing = envRefNames(value).filter((name) => !env[name])
  if (missing.length > 0) {
    const list = missing.join(', ')
    const plural = missing.length > 1
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `environment variable${plural ? 's' : ''} ${list} ${plural ? 'are' : 'is'} not set or empty` +
        `${where ? ` (referenced in ${where})` : ''}`,
      { hint: `Export ${plural ? 'them' : 'it'} before the run, or remove the reference from the config.` },
    )
  }
  return mapStrings(value, (s) =>
    s.replace(TOKEN, (whole, escape?: string, name?: string) => (escape ? '${' : name ? env[name]! : whole)),
  )
}
