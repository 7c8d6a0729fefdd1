import { createRequire } from 'node:module'
import { open } from 'node:fs/promises'
import type * as Yaml from 'yaml'
import type { Document, LineCounter, Node, Pair, YAMLMap } from 'yaml'
import type { z } from 'zod'
import {
  AgentEvalOpsError,
  checksumOf,
  duplicateKeyMessage,
  errorMessage,
  duplicateKeys,
  isStackOverflow,
  parseYaml,
  TOO_DEEP_MESSAGE,
} from '../core/index.ts'
import type { JsonObject } from '../core/index.ts'
import type { AdapterCatalog, AdapterKind } from './catalog.ts'
import { envRefSyntaxError } from './env-refs.ts'
import { CONFIG_KEYS, RunConfig, UNKNOWN_KEY } from './run-config.ts'

const requireModule = createRequire(import.meta.url)
let yamlModule: typeof Yaml | undefined
/** yaml, loaded on first use: most processes that import agentevalops (Vitest's workers) never read YAML. */
const yaml = (): typeof Yaml => (yamlModule ??= requireModule('yaml') as typeof Yaml)

/** One problem in a config file, located at the YAML node it is about. */
export interface ConfigFinding {
  file: string
  /** 1-based. */
  line: number
  /** 1-based. */
  col: number
  /** The field's YAML path, dotted: `agent.resource_limits.max_tokens`, `evaluators[1].id`; '' for the file. */
  path: string
  /** What was expected and what came. */
  message: string
}

/** `file:line:col path: message`, or `file:line:col: message` for a finding about the file (e.g. YAML syntax). */
export function formatFinding(f: ConfigFinding): string {
  return `${f.file}:${f.line}:${f.col}${f.path ? ` ${f.path}` : ''}: ${f.message}`
}

/** CONFIG_INVALID with every finding of a config file: one line each in the message, all of them in `findings`. */
export class ConfigError extends AgentEvalOpsError {
  readonly findings: readonly ConfigFinding[]

  constructor(findings: readonly ConfigFinding[]) {
    super('CONFIG_INVALID', findings.map(formatFinding).join('\n'))
    this.name = 'ConfigError'
    this.findings = findings
  }
}

export interface LoadedConfig {
  /** The path the config was loaded from, as given. */
  file: string
  config: RunConfig
  /** The file's text as written (env references untouched). */
  raw: string
  /** sha256 of the canonical JSON of `config` (env references unexpanded): equal configs hash equally. */
  hash: string
}

const MIB = 1024 * 1024

/**
 * A config names a benchmark, an agent and its checks: a few KiB. The bound keeps a file that is not one (a dataset
 * or a log given by mistake) from costing minutes and gigabytes before it is refused.
 */
export const MAX_CONFIG_BYTES = MIB

function tooBig(file: string, bytes: number): ConfigError {
  const message =
    `the file is ${(bytes / MIB).toFixed(1)} MiB, more than the ${MAX_CONFIG_BYTES / MIB} MiB a config may be: ` +
    'keep tasks and other bulk data in a dataset file the benchmark reads'
  return new ConfigError([{ file, line: 1, col: 1, path: '', message }])
}

/** Reads, parses and validates a RunConfig file; throws a ConfigError listing every problem at once. */
export async function loadRunConfig(file: string, catalog?: AdapterCatalog): Promise<LoadedConfig> {
  let text: string
  try {
    const handle = await open(file, 'r')
    try {
      // Sized before it is read: a huge file is refused without loading it.
      const { size } = await handle.stat()
      if (size > MAX_CONFIG_BYTES) throw tooBig(file, size)
      text = await handle.readFile('utf8')
    } finally {
      await handle.close()
    }
  } catch (e) {
    if (e instanceof ConfigError) throw e
    throw new AgentEvalOpsError('CONFIG_INVALID', `cannot read the config file: ${errorMessage(e)}`, {
      location: { file },
      hint: 'Check the path; configs usually live in configs/*.yaml.',
      cause: e,
    })
  }
  return parseRunConfig(text, file, catalog)
}

/**
 * Parses and validates RunConfig YAML text; `file` names it in messages. With a catalog, adapter ids are checked
 * against the ones on hand. Throws a ConfigError listing every problem at once, sorted by line.
 */
export function parseRunConfig(text: string, file: string, catalog?: AdapterCatalog): LoadedConfig {
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > MAX_CONFIG_BYTES) throw tooBig(file, bytes)
  const lineCounter = new (yaml().LineCounter)()
  const at = (offset: number) => lineCounter.linePos(offset)
  const parsed = parseYaml(text, lineCounter)
  if (parsed.tooDeepAt !== undefined) {
    throw new ConfigError([{ file, ...at(parsed.tooDeepAt), path: '', message: TOO_DEEP_MESSAGE }])
  }
  const { doc } = parsed
  const findings: ConfigFinding[] = []

  if (doc.errors.length > 0) {
    // Validating a document that did not parse would only add confusing echoes of the syntax error.
    for (const err of doc.errors) {
      findings.push({ file, ...at(err.pos[0]), path: '', message: firstLine(err.message) })
    }
    throw new ConfigError(sortFindings(findings))
  }
  // Reported as yaml's own check did: a YAML-level finding at the second key, before any validation.
  for (const dup of duplicateKeys(doc)) {
    const message = duplicateKeyMessage(dup.key, at(dup.firstOffset).line)
    findings.push({ file, ...at(dup.offset), path: '', message })
  }
  if (findings.length > 0) throw new ConfigError(sortFindings(findings))

  try {
    return validate(doc, lineCounter, text, file, catalog)
  } catch (e) {
    // Aliases can nest deeper than the text does; what recursion meets is refused as the text's nesting is.
    if (isStackOverflow(e))
      throw new ConfigError([{ file, line: 1, col: 1, path: '', message: TOO_DEEP_MESSAGE }])
    throw e
  }
}

function validate(
  doc: Document,
  lineCounter: LineCounter,
  text: string,
  file: string,
  catalog: AdapterCatalog | undefined,
): LoadedConfig {
  const findings: ConfigFinding[] = []

  const locator = new Locator(doc, lineCounter)
  const add = (path: Path, message: string, missing = false) => {
    const { line, col } = locator.locate(path, missing)
    findings.push({ file, line, col, path: formatPath(path), message })
  }

  if (doc.contents === null) {
    const message = 'the file is empty (expected a mapping with at least name, benchmark and agent)'
    throw new ConfigError([{ file, line: 1, col: 1, path: '', message }])
  }

  let data: unknown
  try {
    data = doc.toJS()
  } catch (e) {
    // e.g. an alias that expands too often ("billion laughs").
    findings.push({ file, line: 1, col: 1, path: '', message: firstLine(errorMessage(e)) })
    throw new ConfigError(findings)
  }

  const parsed = RunConfig.safeParse(data)
  if (!parsed.success) {
    for (const issue of flattenUnions(parsed.error.issues)) addIssue(issue, data, add)
  }
  checkEnvRefs(data, [], add)
  if (catalog) checkIds(data, catalog, add)

  if (findings.length > 0 || !parsed.success) throw new ConfigError(sortFindings(findings))
  return { file, config: parsed.data, raw: text, hash: checksumOf(parsed.data) }
}

// ---------------------------------------------------------------------------------------------------------------
// Paths

type Path = readonly (string | number)[]

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/

/** `agent.resource_limits.max_tokens`, `evaluators[1].id`, `labels["my team"]`. */
export function formatPath(path: Path): string {
  let out = ''
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`
    else if (PLAIN_KEY.test(seg)) out += out ? `.${seg}` : seg
    else out += `[${JSON.stringify(seg)}]`
  }
  return out
}

/** The path with list indices replaced by `[]`, as CONFIG_KEYS is keyed. */
function pattern(path: Path): string {
  return formatPath(path).replace(/\[\d+\]/g, '[]')
}

function valueAt(data: unknown, path: Path): unknown {
  let node = data
  for (const seg of path) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string | number, unknown>)[seg]
  }
  return node
}

// ---------------------------------------------------------------------------------------------------------------
// Locations

/** Maps YAML paths to line:col. A value is located at its key (`max_tokens:`), a list item at the item. */
class Locator {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** For a missing field (`missing`, or a path that does not exist), the place of the mapping that lacks it. */
  locate(path: Path, missing = false): { line: number; col: number } {
    const reach = missing ? path.slice(0, -1) : path
    let node = this.resolve(this.doc.contents)
    let at: number | undefined = node?.range?.[0]
    for (const seg of reach) {
      if (yaml().isMap(node)) {
        const pair = this.pairsOf(node).get(String(seg))
        if (!pair) break
        at = (pair.key as Node | null)?.range?.[0] ?? at
        node = this.resolve(pair.value as Node | null)
      } else if (yaml().isSeq(node) && typeof seg === 'number') {
        const item = this.resolve(node.items[seg] as Node | null | undefined)
        if (!item) break
        at = item.range?.[0] ?? at
        node = item
      } else break
    }
    return at === undefined ? { line: 1, col: 1 } : this.lines.linePos(at)
  }

  /** Each mapping's pairs by key, built once: a search per finding is quadratic in a mapping of 40k bad values. */
  private readonly pairs = new WeakMap<YAMLMap, Map<string, Pair>>()

  private pairsOf(map: YAMLMap): Map<string, Pair> {
    let byKey = this.pairs.get(map)
    if (!byKey) {
      byKey = new Map()
      for (const p of map.items) {
        const key = String(yaml().isScalar(p.key) ? p.key.value : p.key)
        if (!byKey.has(key)) byKey.set(key, p)
      }
      this.pairs.set(map, byKey)
    }
    return byKey
  }

  private resolve(node: Node | null | undefined): Node | undefined {
    if (yaml().isAlias(node)) return node.resolve(this.doc)
    return node ?? undefined
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Findings

type Add = (path: Path, message: string, missing?: boolean) => void

/**
 * A union ("an id or a mapping") reports every branch's issues. When the value had the shape of one branch, its
 * issues are the useful ones (`evaluators[1].options: expected …`), so they replace the union's; otherwise the
 * union's own message stands ("expected an evaluator id or a mapping { id, options }, got 42").
 */
function flattenUnions(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union') return [issue]
    const fitting = issue.errors.find(
      (branch) =>
        !branch.some((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value')),
    )
    if (!fitting) return [issue]
    return flattenUnions(fitting).map((i) => ({ ...i, path: [...issue.path, ...i.path] }))
  })
}

function addIssue(issue: z.core.$ZodIssue, data: unknown, add: Add): void {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol')
  if (issue.code === 'unrecognized_keys' && issue.message === UNKNOWN_KEY) {
    const known = CONFIG_KEYS.get(pattern(path)) ?? []
    for (const key of issue.keys) add([...path, key], unknownKeyMessage(key, known))
    return
  }
  const missing = path.length > 0 && valueAt(data, path) === undefined
  add(path, issue.message, missing)
}

function unknownKeyMessage(key: string, known: readonly string[]): string {
  const guess = closest(key, known)
  return sentences(
    `unknown key${known.length ? ` (expected one of: ${known.join(', ')})` : ''}`,
    guess && `did you mean "${guess}"?`,
  )
}

/** `first. Second? Third.`: the first part as a clause, each further one capitalized. */
function sentences(first: string, ...more: (string | undefined)[]): string {
  const rest = more.filter((s): s is string => !!s).map((s) => s[0]!.toUpperCase() + s.slice(1))
  if (rest.length === 0) return first
  return `${first}. ${rest.join(' ')}`
}

/** Strings with a malformed `${…}` (every string of the config may hold references). */
function checkEnvRefs(value: unknown, path: Path, add: Add): void {
  if (typeof value === 'string') {
    const problem = envRefSyntaxError(value)
    if (problem) add(path, problem)
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => checkEnvRefs(v, [...path, i], add))
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) checkEnvRefs(v, [...path, k], add)
  }
}

const KIND_NAMES: Record<AdapterKind, string> = {
  benchmark: 'benchmark',
  runner: 'runner',
  evaluator: 'evaluator',
  policy: 'policy checker',
  scorer: 'scorer',
  reporter: 'reporter',
}

/** Adapter ids the catalog does not know. Checked on the data as written, so they show beside schema findings. */
function checkIds(data: unknown, catalog: AdapterCatalog, add: Add): void {
  const check = (kind: AdapterKind, path: Path) => {
    const id = valueAt(data, path)
    if (typeof id !== 'string' || id === '' || catalog.has(kind, id)) return
    const known = catalog.ids(kind)
    const guess = closest(id, known)
    const hint = catalog.hintFor(kind, id)
    add(
      path,
      sentences(
        `unknown ${KIND_NAMES[kind]} ${JSON.stringify(id)} (known: ${known.length ? known.join(', ') : 'none'})`,
        // The registry's own hint may already suggest a close id: say it once.
        guess && !/did you mean/i.test(hint ?? '') ? `did you mean "${guess}"?` : undefined,
        hint,
      ),
    )
  }
  // The options of a known adapter, located at the option itself.
  const checkOptions = (kind: AdapterKind, idPath: Path, optionsPath: Path) => {
    const id = valueAt(data, idPath)
    const options = valueAt(data, optionsPath)
    if (typeof id !== 'string' || !catalog.has(kind, id) || !catalog.optionProblems) return
    if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options)))
      return // The schema's own finding says what a mapping of options should be.
    for (const p of catalog.optionProblems(kind, id, (options ?? {}) as JsonObject)) {
      const missing = p.path.length > 0 && valueAt(options, p.path) === undefined
      add([...optionsPath, ...p.path], `${KIND_NAMES[kind]} ${JSON.stringify(id)}: ${p.message}`, missing)
    }
  }
  check('benchmark', ['benchmark', 'id'])
  checkOptions('benchmark', ['benchmark', 'id'], ['benchmark', 'options'])
  check('runner', ['agent', 'runner'])
  checkOptions('runner', ['agent', 'runner'], ['agent', 'options'])
  check('scorer', ['scorer'])
  for (const [field, kind] of [
    ['evaluators', 'evaluator'],
    ['policy', 'policy'],
  ] as const) {
    const list = valueAt(data, [field])
    if (!Array.isArray(list)) continue
    list.forEach((entry, i) => {
      if (typeof entry === 'string') {
        check(kind, [field, i])
        checkOptions(kind, [field, i], [field, i, 'options'])
      } else {
        check(kind, [field, i, 'id'])
        checkOptions(kind, [field, i, 'id'], [field, i, 'options'])
      }
    })
  }
}

function sortFindings(findings: ConfigFinding[]): ConfigFinding[] {
  const seen = new Set<string>()
  return [...findings]
    .sort((a, b) => a.line - b.line || a.col - b.col)
    .filter((f) => {
      const line = formatFinding(f)
      if (seen.has(line)) return false
      seen.add(line)
      return true
    })
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim()
}

/** The candidate within edit distance 2 (and under half the word) of `word`, if any. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Math.min(2, Math.floor(word.length / 2))
  for (const c of candidates) {
    const d = editDistance(word, c)
    if (d <= bestDistance && (best === undefined || d < editDistance(word, best))) {
      best = c
      bestDistance = d
    }
  }
  return best
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = row
  }
  return prev[b.length]!
}
