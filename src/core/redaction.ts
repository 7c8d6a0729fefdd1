/**
 * Secrets never reach a trace, a record, a report or a log line: every string the harness writes about a trial goes
 * through a Redactor, which replaces the values of secret environment variables and common key shapes with
 * `[REDACTED:NAME]`. The marker names the secret, never shows it, and lets the secret-leak policy cite the step.
 * A JSON value's object keys are redacted like its strings (an agent may key a map by a token), and where the
 * value is free-form (a tool's args, its result) so are whole values equal to a secret: a number whose digits are
 * one (a PIN passed as 4821), and a string or key equal to a short configured secret.
 */

export interface Redactor {
  /** False when there is nothing to redact but key shapes. */
  readonly hasSecrets: boolean
  string(text: string): string
  /**
   * A copy of a JSON value with every string and object key redacted (the value itself when nothing changes); with
   * `wholeValues`, also every whole value equal to a secret (a number whose digits are one, a string or key equal
   * to a short configured one), replaced by its marker (a string). Only for free-form values: where a schema wants
   * a number (a token count, a step) or an id (a task id "4821"), a marker would break the record.
   */
  json<T>(value: T, options?: JsonRedaction): T
}

export interface JsonRedaction {
  wholeValues?: boolean
}

/** Environment variable names whose values are secrets, beyond those configured. */
export const SECRET_NAME_PATTERN = /(?:^|_)(?:API_KEY|TOKEN|SECRET|PASSWORD|ACCESS_KEY)$/i

/** A comma-separated list of more secret variable names (beside `secrets` options). */
export const SECRETS_ENV = 'AGENTEVALOPS_SECRETS'

/** Shorter values are left alone: redacting "1" or "true" everywhere would wreck traces and protect nothing. */
export const MIN_SECRET_LENGTH = 8

/**
 * A configured secret (in AGENTEVALOPS_SECRETS or `names`) shorter than MIN_SECRET_LENGTH but at least this long, a
 * PIN, is redacted only as a whole value of free-form JSON: a string, an object key or a number equal to it, never
 * inside text.
 */
export const MIN_WHOLE_SECRET_LENGTH = 4

/** Key shapes redacted wherever they appear, whether or not the environment holds them. */
export const KEY_SHAPES: readonly { name: string; pattern: RegExp }[] = [
  {
    name: 'PRIVATE_KEY',
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  },
  { name: 'ANTHROPIC_KEY', pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { name: 'OPENAI_KEY', pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}/g },
  { name: 'AWS_ACCESS_KEY_ID', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: 'GITHUB_TOKEN', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g },
  { name: 'SLACK_TOKEN', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
]

/** Matches where any of KEY_SHAPES does (not global: a test keeps no state). */
const ANY_KEY_SHAPE = new RegExp(KEY_SHAPES.map(({ pattern }) => `(?:${pattern.source})`).join('|'))

/** The `[REDACTED:NAME]` markers in a text, by name. */
export const REDACTION_MARKER = /\[REDACTED:([A-Z0-9_]+)\]/g

export interface RedactorOptions {
  /** Further variable names whose values are secrets. */
  names?: readonly string[]
}

/** A redactor for the secrets of `env`: variables named like keys, those in AGENTEVALOPS_SECRETS, and `names`. */
export function redactorFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: RedactorOptions = {},
): Redactor {
  const configured = new Set([
    ...(options.names ?? []),
    ...(env[SECRETS_ENV] ?? '')
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean),
  ])
  const secrets: [value: string, marker: string][] = []
  const wholeValues: [value: string, marker: string][] = []
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue
    const marker = `[REDACTED:${name}]`
    if (value.length >= MIN_SECRET_LENGTH) {
      if (configured.has(name) || SECRET_NAME_PATTERN.test(name)) secrets.push([value, marker])
    } else if (value.length >= MIN_WHOLE_SECRET_LENGTH && configured.has(name))
      wholeValues.push([value, marker])
  }
  // Longest first: a secret that contains another is replaced whole.
  secrets.sort((a, b) => b[0].length - a[0].length)
  return createRedactor(secrets, wholeValues)
}

type Secret = readonly [value: string, marker: string]

/**
 * A redactor for exactly these secret values (and the key shapes); `wholeValues` are redacted only where a string,
 * an object key or a number equals them.
 */
export function createRedactor(secrets: readonly Secret[], wholeValues: readonly Secret[] = []): Redactor {
  const whole = new Map<string, string>()
  for (const [value, marker] of [...wholeValues, ...secrets]) if (!whole.has(value)) whole.set(value, marker)
  const string = (text: string): string => {
    let out = text
    for (const [value, marker] of secrets) if (out.includes(value)) out = out.split(value).join(marker)
    // One scan for all shapes: nearly every string holds none, and six scans of it cost six times as much.
    if (!ANY_KEY_SHAPE.test(out)) return out
    for (const { name, pattern } of KEY_SHAPES) {
      pattern.lastIndex = 0
      if (pattern.test(out)) out = out.replace(pattern, `[REDACTED:${name}]`)
    }
    return out
  }
  const wholeString = (text: string): string => whole.get(text) ?? string(text)
  const number = (n: number): number | string => (Number.isFinite(n) ? (whole.get(String(n)) ?? n) : n)
  const json = <T>(value: T, options: JsonRedaction = {}): T =>
    (options.wholeValues === true
      ? redactValue(value, wholeString, number)
      : redactValue(value, string, undefined)) as T
  return { hasSecrets: secrets.length + wholeValues.length > 0, string, json }
}

function redactValue(
  value: unknown,
  redact: (s: string) => string,
  number: ((n: number) => number | string) | undefined,
): unknown {
  if (typeof value === 'string') return redact(value)
  if (typeof value === 'number') return number ? number(value) : value
  if (Array.isArray(value)) {
    // Copied only from the first item that changes: most values hold no secret and come back as they are.
    let out: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const r = redactValue(item, redact, number)
      if (out === undefined && r !== item) out = value.slice(0, i)
      out?.push(r)
    }
    return out ?? value
  }
  if (value !== null && typeof value === 'object') {
    const source = value as Record<string, unknown>
    const keys = Object.keys(source)
    const renamed = redactKeys(keys, redact)
    let out: [string, unknown][] | undefined = renamed === null ? undefined : []
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      const item = source[key]
      const r = redactValue(item, redact, number)
      if (out === undefined && r !== item) out = keys.slice(0, i).map((k) => [k, source[k]])
      out?.push([renamed?.[i] ?? key, r])
    }
    // fromEntries defines each key as data, so a key `__proto__` stays a key and never becomes the prototype.
    return out === undefined ? value : Object.fromEntries(out)
  }
  return value
}

/**
 * The redacted keys of an object, in order, or null when none changes. Two keys may redact to one (two different
 * `sk-ant-…` keys): a redacted key that meets a key already taken gets ` (2)`, ` (3)`, … so no value is lost, and
 * keys that held no secret keep their names.
 */
function redactKeys(keys: readonly string[], redact: (s: string) => string): string[] | null {
  const first = keys.findIndex((key) => redact(key) !== key)
  if (first === -1) return null
  const redacted = keys.map(redact)
  const taken = new Set(keys.filter((key, i) => redacted[i] === key))
  return keys.map((key, i) => {
    const r = redacted[i]!
    if (r === key) return key
    let name = r
    for (let n = 2; taken.has(name); n++) name = `${r} (${n})`
    taken.add(name)
    return name
  })
}
