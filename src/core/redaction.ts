/**
 * Secrets never reach a trace, a record, a report or a log line: every string the harness writes about a trial goes
 * through a Redactor, which replaces the values of secret environment variables and common key shapes with
 * `[REDACTED:NAME]`. The marker names the secret, never shows it, and lets the secret-leak policy cite the step.
 */

export interface Redactor {
  /** False when there is nothing to redact but key shapes. */
  readonly hasSecrets: boolean
  string(text: string): string
  /** A copy of a JSON value with every string redacted (the value itself when nothing changes). */
  json<T>(value: T): T
}

/** Environment variable names whose values are secrets, beyond those configured. */
export const SECRET_NAME_PATTERN = /(?:^|_)(?:API_KEY|TOKEN|SECRET|PASSWORD|ACCESS_KEY)$/i

/** A comma-separated list of more secret variable names (beside `secrets` options). */
export const SECRETS_ENV = 'AGENTEVALOPS_SECRETS'

/** Shorter values are left alone: redacting "1" or "true" everywhere would wreck traces and protect nothing. */
export const MIN_SECRET_LENGTH = 8

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
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < MIN_SECRET_LENGTH) continue
    if (configured.has(name) || SECRET_NAME_PATTERN.test(name)) secrets.push([value, `[REDACTED:${name}]`])
  }
  // Longest first: a secret that contains another is replaced whole.
  secrets.sort((a, b) => b[0].length - a[0].length)
  return createRedactor(secrets)
}

/** A redactor for exactly these secret values (and the key shapes). */
export function createRedactor(secrets: readonly (readonly [value: string, marker: string])[]): Redactor {
  const string = (text: string): string => {
    let out = text
    for (const [value, marker] of secrets) if (out.includes(value)) out = out.split(value).join(marker)
    for (const { name, pattern } of KEY_SHAPES) {
      pattern.lastIndex = 0
      if (pattern.test(out)) out = out.replace(pattern, `[REDACTED:${name}]`)
    }
    return out
  }
  const json = <T>(value: T): T => redactValue(value, string) as T
  return { hasSecrets: secrets.length > 0, string, json }
}

function redactValue(value: unknown, redact: (s: string) => string): unknown {
  if (typeof value === 'string') return redact(value)
  if (Array.isArray(value)) {
    let changed = false
    const out = value.map((item) => {
      const r = redactValue(item, redact)
      if (r !== item) changed = true
      return r
    })
    return changed ? out : value
  }
  if (value !== null && typeof value === 'object') {
    let changed = false
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      const r = redactValue(item, redact)
      if (r !== item) changed = true
      out[key] = r
    }
    return changed ? out : value
  }
  return value
}
