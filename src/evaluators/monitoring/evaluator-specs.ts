import * as z from 'zod'
import {
  AgentEvalOpsError,
  canonicalJson,
  closest,
  docPath,
  JsonObject,
  MonitorLevel,
  sdkVersion,
  sha256,
  type JsonValue,
  type MonitorEvaluatorSpec,
} from '../../core/index.ts'
import { IDENTIFIER_ALIASES, MONITOR_EVALUATORS, NOT_FOR_MONITORING, type JudgeOptions } from './catalog.ts'
import { templatePlaceholders } from './judge-template.ts'

/*
 * The `--evaluators` argument: the seed's JSON array of `{ identifier, displayName, type?, level?, config? }`.
 * Evaluators are ours, by identifier; nothing in the argument is ever run as code.
 */

const KNOWN_TYPES = ['builtin', 'llm_judge', 'llm-judge'] as const
const CODE_TYPES = new Set(['custom', 'code', 'python', 'script', 'function'])
const CODE_FIELDS = new Set(['code', 'source', 'module', 'python', 'script', 'function', 'callable'])
const ENTRY_FIELDS = ['identifier', 'displayName', 'type', 'level', 'config'] as const

const Entry = z.strictObject({
  identifier: z.string().min(1),
  displayName: z.string().min(1),
  type: z.string().min(1).nullish(),
  level: MonitorLevel.default('trace'),
  config: JsonObject.nullish(),
})

function fail(origin: string, path: string, message: string, hint?: string): never {
  throw new AgentEvalOpsError('CONFIG_INVALID', `${path}: ${message}`, {
    location: { file: origin },
    ...(hint ? { hint } : {}),
  })
}

function refuseCode(origin: string, path: string): never {
  fail(
    origin,
    path,
    'evaluator code in the --evaluators argument is refused: agentevalops never runs code it is handed as data',
    `Publish the evaluator as an adapter package (see ${docPath('adapter-plugins.md')}) and name it by its identifier, or use a built-in one: ${knownIdentifiers().join(', ')}.`,
  )
}

function knownIdentifiers(): string[] {
  return [...Object.keys(MONITOR_EVALUATORS), ...Object.keys(IDENTIFIER_ALIASES)].sort()
}

/** A typo'd key also makes the real one "missing": the unknown key is the cause, so it is reported first. */
function firstIssue(error: z.ZodError): z.core.$ZodIssue {
  const issues = error.issues
  return issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!
}

/** The path of a zod issue under `base`, as `evaluators[2].config.threshold`. */
function pathOf(base: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === 'number' ? `${out}[${key}]` : `${out}.${String(key)}`),
    base,
  )
}

function issueMessage(
  base: string,
  issue: z.core.$ZodIssue,
  keys: readonly string[],
): { path: string; message: string } {
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? ''
    const guess = issue.path.length === 0 ? closest(key, keys, true) : undefined
    return {
      path: pathOf(base, [...issue.path, key]),
      message: `unknown field${guess ? ` (did you mean "${guess}"?)` : `; the fields are ${keys.join(', ')}`}`,
    }
  }
  return { path: pathOf(base, issue.path), message: issue.message }
}

function parseJson(text: string, origin: string): unknown {
  try {
    return JSON.parse(text)
  } catch (e) {
    return fail(
      origin,
      'evaluators',
      `not JSON (${(e as Error).message})`,
      'Give a JSON array such as [{"identifier":"trace-quality","displayName":"Trace quality"}], inline or as @file.',
    )
  }
}

function versionOf(identifier: string, level: MonitorLevel, config: JsonObject): string {
  return `${sha256(canonicalJson({ identifier, level, config })).slice(0, 16)}+${sdkVersion()}`
}

/** Checks the options of a catalog evaluator by building it once; errors point into `config`. */
function checkConfig(identifier: string, config: JsonObject, base: string, origin: string): void {
  const entry = MONITOR_EVALUATORS[identifier]!
  const parsed = entry.options.safeParse(config)
  if (!parsed.success) {
    const issue = firstIssue(parsed.error)
    const { path, message } = issueMessage(`${base}.config`, issue, Object.keys(entry.options.shape).sort())
    fail(
      origin,
      path,
      message,
      `The options of ${identifier} are: ${Object.keys(entry.options.shape).sort().join(', ') || 'none'}.`,
    )
  }
  if (identifier === 'llm-judge') {
    const o = parsed.data as JudgeOptions
    if (o.prompt_template === undefined && o.rubric === undefined && o.criteria === undefined) {
      fail(
        origin,
        `${base}.config`,
        'an LLM judge needs prompt_template (or rubric, or criteria)',
        'e.g. "config": {"prompt_template": "Is {output} a helpful answer to {input}?"}.',
      )
    }
    if (o.prompt_template !== undefined)
      templatePlaceholders(o.prompt_template, `${base}.config.prompt_template`, origin)
  }
  try {
    entry.build('check', parsed.data, {})
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e)
    fail(origin, `${base}.config`, message)
  }
}

function hasCode(value: JsonValue | undefined): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).some((k) => CODE_FIELDS.has(k))
  )
}

/**
 * The monitor's evaluators from the `--evaluators` text (JSON; `origin` names where it came from in errors: the
 * flag, or the @file). Throws CONFIG_INVALID located as `evaluators[2].config.threshold: …`, with "did you mean"
 * for a mistyped identifier or field; code in the argument (a code/source/module/python field, type custom or
 * code) is refused, pointing to adapter packages.
 */
export function parseMonitorEvaluators(text: string, origin: string): MonitorEvaluatorSpec[] {
  const raw = parseJson(text, origin)
  if (!Array.isArray(raw)) {
    fail(
      origin,
      'evaluators',
      `expected a JSON array of evaluators, got ${raw === null ? 'null' : typeof raw}`,
    )
  }
  if (raw.length === 0) fail(origin, 'evaluators', 'no evaluators given', 'List at least one evaluator.')
  const specs: MonitorEvaluatorSpec[] = []
  const names = new Map<string, number>()
  const versions = new Map<string, number>()
  raw.forEach((item: unknown, i) => {
    const base = `evaluators[${i}]`
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      fail(origin, base, 'expected an object { identifier, displayName, type?, level?, config? }')
    }
    const record = item as Record<string, JsonValue>
    if (Object.keys(record).some((k) => CODE_FIELDS.has(k))) refuseCode(origin, base)
    if (hasCode(record['config'])) refuseCode(origin, `${base}.config`)
    const type = record['type']
    if (typeof type === 'string' && CODE_TYPES.has(type.toLowerCase())) refuseCode(origin, `${base}.type`)
    const parsed = Entry.safeParse(item)
    if (!parsed.success) {
      const { path, message } = issueMessage(base, firstIssue(parsed.error), ENTRY_FIELDS)
      fail(origin, path, message)
    }
    const e = parsed.data
    if (e.type && !(KNOWN_TYPES as readonly string[]).includes(e.type)) {
      const guess = closest(e.type, KNOWN_TYPES, true)
      fail(
        origin,
        `${base}.type`,
        `unknown type ${JSON.stringify(e.type)}${guess ? ` (did you mean "${guess}"?)` : ''}`,
        `Types: ${KNOWN_TYPES.join(', ')} (or leave it out).`,
      )
    }
    const judged = e.type === 'llm_judge' || e.type === 'llm-judge'
    const identifier = judged ? 'llm-judge' : (IDENTIFIER_ALIASES[e.identifier] ?? e.identifier)
    if (!(identifier in MONITOR_EVALUATORS)) {
      const why = NOT_FOR_MONITORING[identifier]
      if (why) fail(origin, `${base}.identifier`, `${identifier} cannot judge production traces: ${why}`)
      const guess = closest(identifier, knownIdentifiers(), true)
      fail(
        origin,
        `${base}.identifier`,
        `unknown evaluator ${JSON.stringify(e.identifier)}${guess ? ` (did you mean "${guess}"?)` : ''}`,
        `Built-in evaluators for monitoring: ${knownIdentifiers().join(', ')}. Others come from adapter packages (see ${docPath('adapter-plugins.md')}).`,
      )
    }
    const config = e.config ?? {}
    checkConfig(identifier, config, base, origin)
    const earlier = names.get(e.displayName)
    if (earlier !== undefined) {
      fail(
        origin,
        `${base}.displayName`,
        `"${e.displayName}" is also the displayName of evaluators[${earlier}]`,
        'Scores are published by displayName: give each evaluator its own.',
      )
    }
    names.set(e.displayName, i)
    const version = versionOf(identifier, e.level, config)
    const twin = versions.get(version)
    if (twin !== undefined) {
      fail(
        origin,
        base,
        `the same evaluator, level and config as evaluators[${twin}]`,
        'Its scores would be the same scores twice: leave one out.',
      )
    }
    versions.set(version, i)
    const entry = MONITOR_EVALUATORS[identifier]!
    const options = entry.options.parse(config)
    const displayName = e.displayName
    specs.push({
      identifier,
      displayName,
      type: e.type ?? null,
      level: e.level,
      config,
      version,
      create: (judge) => entry.build(displayName, options, judge),
    })
  })
  return specs
}
