import type { z } from 'zod'
import {
  AgentEvalOpsError,
  docPath,
  EVALUATOR_KINDS,
  errorMessage,
  isAgentEvalOpsError,
  closest,
  type JsonObject,
} from '../core/index.ts'
import {
  ADAPTER_KINDS,
  type AdapterCatalog,
  type AdapterContext,
  type AdapterFactories,
  type AdapterKind,
  type AdapterSource,
} from './catalog.ts'

/** What `create(kind, …)` returns: the runner, benchmark, evaluator, policy checker, scorer or report generator. */
export type AdapterOf<K extends AdapterKind> = ReturnType<AdapterFactories[K]>

export interface RegisterOptions {
  /** Who provides the adapter; defaults to built-in. */
  source?: AdapterSource
  /** Replace an adapter already registered under this id instead of failing. */
  override?: boolean
}

/** One registration, as `doctor` lists them. */
export interface RegistryEntry {
  kind: AdapterKind
  id: string
  source: AdapterSource
}

/** What the registry knows about a package it was told about, for hints on unknown ids. */
export type PackageStatus =
  { state: 'loaded'; version: string } | { state: 'failed'; reason: string } | { state: 'not-installed' }

interface Entry extends RegistryEntry {
  factory: (options: JsonObject, context?: AdapterContext) => unknown
}

/** Ids are what configs write: no spaces, may be namespaced by their package (`@acme/tools:grader`). */
const ID_PATTERN = /^[A-Za-z0-9@][\w@./:-]*$/

/** Articles for messages: "an evaluator", "a runner". */
const ARTICLE: Record<AdapterKind, string> = {
  runner: 'a',
  benchmark: 'a',
  evaluator: 'an',
  policy: 'a',
  scorer: 'a',
  reporter: 'a',
}

export function describeSource(source: AdapterSource): string {
  return source.type === 'builtin' ? 'built-in' : `package ${source.name}@${source.version}`
}

/**
 * The adapters on hand, by kind and id: the built-in ones (registered at the edge, plugin/builtin-adapters.ts) and
 * those of third-party packages (registered by discoverPlugins). A RunConfig names adapters by id; `create` builds
 * one from its options, and an unknown id fails with the known ones and a hint on which package might provide it.
 */
export class Registry implements AdapterCatalog {
  private readonly entries_ = new Map<string, Entry>()
  private readonly packages = new Map<string, PackageStatus>()

  /**
   * Adds an adapter. A second registration of the same kind and id fails, naming both sources, unless it passes
   * `{ override: true }`.
   */
  register<K extends AdapterKind>(
    kind: K,
    id: string,
    factory: AdapterFactories[K],
    options: RegisterOptions = {},
  ): void {
    const source = options.source ?? { type: 'builtin' }
    this.checkRegistration(kind, id, factory, options)
    this.entries_.set(keyOf(kind, id), {
      kind,
      id,
      source,
      factory,
    })
  }

  /** Throws exactly what `register` would, without registering: lets a plugin's registrations be staged. */
  checkRegistration(kind: AdapterKind, id: string, factory: unknown, options: RegisterOptions = {}): void {
    const source = options.source ?? { type: 'builtin' }
    const by = describeSource(source)
    if (!(ADAPTER_KINDS as readonly string[]).includes(kind)) {
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `${by} registers an adapter of unknown kind ${JSON.stringify(kind)}.`,
        { hint: `The kinds are: ${ADAPTER_KINDS.join(', ')}.` },
      )
    }
    if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `${by} registers ${kind} with invalid id ${JSON.stringify(id)}.`,
        {
          hint: 'An id starts with a letter, digit or @ and has no spaces (e.g. "my-runner" or "@acme/tools:grader").',
        },
      )
    }
    if (typeof factory !== 'function') {
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `${by} registers ${kind} "${id}" without a factory function (got ${typeof factory}).`,
        { hint: 'Pass a function (options) => adapter.' },
      )
    }
    const existing = this.entries_.get(keyOf(kind, id))
    if (existing && !options.override) {
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `${kind} "${id}" is registered twice: by ${describeSource(existing.source)} and by ${by}.`,
        {
          hint: `Give one of them another id (packages should namespace theirs, e.g. "${suggestNamespace(source, id)}"), or register with { override: true } to replace it on purpose.`,
        },
      )
    }
  }

  has(kind: AdapterKind, id: string): boolean {
    return this.entries_.has(keyOf(kind, id))
  }

  /** Known ids of a kind, sorted. */
  ids(kind: AdapterKind): string[] {
    return [...this.entries_.values()]
      .filter((e) => e.kind === kind)
      .map((e) => e.id)
      .sort()
  }

  /** Where an adapter came from, or undefined when the id is unknown. */
  sourceOf(kind: AdapterKind, id: string): AdapterSource | undefined {
    return this.entries_.get(keyOf(kind, id))?.source
  }

  /** Every registration, by kind (in ADAPTER_KINDS order) then id. */
  entries(): RegistryEntry[] {
    const rank = (k: AdapterKind) => ADAPTER_KINDS.indexOf(k)
    return [...this.entries_.values()]
      .map(({ kind, id, source }) => ({ kind, id, source }))
      .sort((a, b) => rank(a.kind) - rank(b.kind) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }

  /**
   * Builds an adapter from its config options. Unknown id → CONFIG_INVALID listing the known ids and a hint; a
   * factory that throws or returns something that is not that kind of adapter → CONFIG_INVALID naming its source.
   */
  create<K extends AdapterKind>(
    kind: K,
    id: string,
    options: JsonObject = {},
    context?: AdapterContext,
  ): AdapterOf<K> {
    const entry = this.entries_.get(keyOf(kind, id))
    if (!entry) {
      const known = this.ids(kind)
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `unknown ${kind} ${JSON.stringify(id)} (known: ${known.length > 0 ? known.join(', ') : 'none'}).`,
        { hint: this.hintFor(kind, id) },
      )
    }
    const from = describeSource(entry.source)
    let adapter: unknown
    try {
      adapter = entry.factory(options, context)
    } catch (e) {
      if (isAgentEvalOpsError(e)) throw e
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `${kind} "${id}" (${from}) could not be created: ${errorMessage(e).replace(/\.$/, '')}.`,
        {
          hint:
            entry.source.type === 'package'
              ? `Check its options, or report it to ${entry.source.name}.`
              : undefined,
          cause: e,
        },
      )
    }
    const problem = shapeProblem(kind, adapter)
    if (problem) {
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `${kind} "${id}" (${from}) did not create ${ARTICLE[kind]} ${kind}: ${problem}.`,
        {
          hint: `This is a bug in ${from === 'built-in' ? 'agentevalops' : from}; report it to its authors.`,
        },
      )
    }
    // A config-made evaluator or policy checker is described by its options: a resumed run whose options changed
    // re-scores its trials instead of taking their old verdicts (see TrialRecord.keys).
    // The factory made it just now, so it is ours to annotate (unless it froze itself).
    if (
      (kind === 'evaluator' || kind === 'policy') &&
      (adapter as { config?: unknown }).config === undefined &&
      Object.isExtensible(adapter)
    ) {
      Object.defineProperty(adapter, 'config', { value: { id, options }, enumerable: true })
    }
    return adapter as AdapterOf<K>
  }

  /**
   * The problems of a config's options for an adapter, each at its path inside them; [] when they are fine or the
   * adapter's factory declares no schema (made without withOptions: it checks its options itself, when built).
   */
  optionProblems(kind: AdapterKind, id: string, options: JsonObject): OptionProblem[] {
    const schema = optionsSchemaOf(this.entries_.get(keyOf(kind, id))?.factory)
    return schema ? optionProblems(schema, options) : []
  }

  /** Records what discovery found out about a package, so hints on unknown ids can mention it. */
  notePackage(name: string, status: PackageStatus): void {
    this.packages.set(name, status)
  }

  /**
   * A sentence or two on where an unknown id might come from: a close known id, the same id under another kind,
   * the package a namespaced id (`pkg:name`) points at, or the adapter packages found so far.
   */
  hintFor(kind: AdapterKind, id: string): string | undefined {
    const hints: string[] = []
    const close = closest(id, this.ids(kind))
    if (close) hints.push(`Did you mean "${close}"?`)
    const otherKinds = ADAPTER_KINDS.filter((k) => k !== kind && this.has(k, id))
    if (otherKinds.length > 0)
      hints.push(
        `"${id}" is ${otherKinds.map((k) => `${ARTICLE[k]} ${k}`).join(' and ')}, not ${ARTICLE[kind]} ${kind}.`,
      )

    const colon = id.indexOf(':')
    if (colon > 0) {
      hints.push(this.packageHint(kind, id, id.slice(0, colon)))
    } else if (!close && otherKinds.length === 0) {
      hints.push(this.packagesOverview())
    }
    return hints.length > 0 ? hints.join(' ') : undefined
  }

  private packageHint(kind: AdapterKind, id: string, pkg: string): string {
    const status = this.packages.get(pkg)
    const own = this.entries().filter((e) => e.source.type === 'package' && e.source.name === pkg)
    if (status?.state === 'failed') return `Package ${pkg} did not load: ${status.reason}`
    if (status?.state === 'not-installed')
      return `Package ${pkg} is in package.json but not installed: run npm install.`
    if (own.length > 0 || status?.state === 'loaded') {
      const same = own.filter((e) => e.kind === kind).map((e) => e.id)
      const has = same.length > 0 ? `its ${kind}s: ${same.join(', ')}` : `it registers no ${kind}`
      return `Package ${pkg} is installed but does not provide ${kind} "${id}" (${has}); is it an older version?`
    }
    return `"${id}" looks like it comes from the package ${pkg}: install it (npm install --save-dev ${pkg}) so its adapters are discovered.`
  }

  private packagesOverview(): string {
    const failed = [...this.packages].filter(
      (p): p is [string, Extract<PackageStatus, { state: 'failed' }>] => p[1].state === 'failed',
    )
    const loaded = new Map<string, string[]>()
    for (const e of this.entries()) {
      if (e.source.type !== 'package') continue
      const key = `${e.source.name}@${e.source.version}`
      loaded.set(key, [...(loaded.get(key) ?? []), `${e.kind} ${e.id}`])
    }
    const parts: string[] = []
    if (failed.length > 0)
      parts.push(
        `Adapter packages that failed to load: ${failed.map(([n, s]) => `${n} (${s.reason})`).join('; ')}.`,
      )
    if (loaded.size > 0)
      parts.push(
        `Adapter packages found: ${[...loaded].map(([pkg, ids]) => `${pkg} (${ids.join(', ')})`).join('; ')}.`,
      )
    else if (failed.length === 0) parts.push('No adapter packages are loaded.')
    parts.push(
      `A third-party adapter comes from a dependency whose package.json has an "agentevalops": { "adapters": … } field (see ${docPath('adapter-plugins.md')}).`,
    )
    return parts.join(' ')
  }
}

function keyOf(kind: string, id: string): string {
  return `${kind}\u0000${id}`
}

function suggestNamespace(source: AdapterSource, id: string): string {
  return source.type === 'package' ? `${source.name}:${id}` : `my-package:${id}`
}

const isFn = (v: unknown): boolean => typeof v === 'function'
const isText = (v: unknown): boolean => typeof v === 'string' && v.length > 0

/** What is wrong with an adapter of `kind`, structurally, or undefined when it has the right shape. */
function shapeProblem(kind: AdapterKind, adapter: unknown): string | undefined {
  if (typeof adapter !== 'object' || adapter === null)
    return `the factory returned ${adapter === null ? 'null' : typeof adapter}, not an object`
  const a = adapter as Record<string, unknown>
  const need = (checks: Record<string, (v: unknown) => boolean>): string | undefined => {
    const bad = Object.entries(checks)
      .filter(([member, ok]) => !ok(a[member]))
      .map(([member]) => member)
    return bad.length > 0 ? `missing or invalid ${bad.join(', ')}` : undefined
  }
  switch (kind) {
    case 'runner':
      return need({ runnerInfo: isFn, run: isFn })
    case 'benchmark':
      return need({ id: isText, version: (v) => typeof v === 'string', listTasks: isFn, info: isFn })
    case 'evaluator':
      return need({
        id: isText,
        kind: (v) => (EVALUATOR_KINDS as readonly unknown[]).includes(v),
        evaluate: isFn,
      })
    case 'policy':
      return need({ id: isText, check: isFn })
    case 'scorer':
      return need({ summarize: isFn })
    case 'reporter':
      return need({ format: isText, render: isFn })
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Options: every factory validates its own, strictly, so a typo is a config error naming the adapter and the option.

/** Parses an adapter's config options with a strict zod object; CONFIG_INVALID names the adapter and the option. */
export function parseAdapterOptions<S extends z.ZodObject>(
  kind: AdapterKind,
  id: string,
  schema: S,
  options: JsonObject | undefined,
): z.output<S> {
  const input = options ?? {}
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  const valid = Object.keys(schema.shape).sort()
  // A typo'd key also makes the real one "missing": report the unknown key first, it is the cause.
  const issues = [...parsed.error.issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  )
  const problems = issues.slice(0, 3).map((issue) => {
    const path = issue.path.map(String)
    if (issue.code === 'unrecognized_keys') {
      const where = path.length > 0 ? ` in "${path.join('.')}"` : ''
      return issue.keys
        .map((key) => {
          const guess = path.length === 0 ? closest(key, valid, true) : undefined
          return `unknown option "${key}"${where}${guess ? ` (did you mean "${guess}"?)` : ''}`
        })
        .join('; ')
    }
    const name = path.join('.')
    if (valueAt(input, issue.path) === undefined && issue.code === 'invalid_type')
      return `option "${name}" is required`
    return `option "${name}": ${issue.message}`
  })
  throw new AgentEvalOpsError('CONFIG_INVALID', `${kind} "${id}": ${problems.join('; ')}.`, {
    hint: valid.length > 0 ? `Its options are: ${valid.join(', ')}.` : `It takes no options.`,
  })
}

/**
 * A factory that validates its options with `schema` before `build` sees them: the usual way to write one.
 * `build` gets the parsed (typed, defaulted) options.
 */
export function withOptions<K extends AdapterKind, S extends z.ZodObject>(
  kind: K,
  id: string,
  schema: S,
  build: (options: z.output<S>, context?: AdapterContext) => AdapterOf<K>,
): (options: JsonObject, context?: AdapterContext) => AdapterOf<K> {
  const factory = (options: JsonObject, context?: AdapterContext): AdapterOf<K> =>
    build(parseAdapterOptions(kind, id, schema, options), context)
  OPTION_SCHEMAS.set(factory, schema)
  return factory
}

/** One problem with an adapter's options, at its path inside them, for the config loader to locate. */
export interface OptionProblem {
  path: (string | number)[]
  message: string
}

/** The options schema of each factory made by withOptions, so a config's options can be checked where it is read. */
const OPTION_SCHEMAS = new WeakMap<object, z.ZodObject>()

/** The options schema a factory was made with (by withOptions), or undefined. */
export function optionsSchemaOf(factory: unknown): z.ZodObject | undefined {
  return typeof factory === 'function' ? OPTION_SCHEMAS.get(factory) : undefined
}

/**
 * Every problem of `options` against `schema`, each at its path. A string value holding a `${VAR}` reference is
 * not judged: only its expansion, in the worker, is the real value.
 */
export function optionProblems(schema: z.ZodObject, options: JsonObject): OptionProblem[] {
  const parsed = schema.safeParse(options)
  if (parsed.success) return []
  const valid = Object.keys(schema.shape).sort()
  const problems: OptionProblem[] = []
  for (const issue of parsed.error.issues) {
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol')
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const guess = path.length === 0 ? closest(key, valid, true) : undefined
        const known =
          path.length > 0
            ? ''
            : valid.length > 0
              ? ` (its options are: ${valid.join(', ')})`
              : ' (it takes no options)'
        problems.push({
          path: [...path, key],
          message: `unknown option${guess ? `. Did you mean "${guess}"?` : known}`,
        })
      }
      continue
    }
    const value = valueAt(options, path)
    if (typeof value === 'string' && value.includes('${')) continue
    if (value === undefined && issue.code === 'invalid_type') {
      problems.push({ path, message: 'missing (a required option)' })
      continue
    }
    problems.push({ path, message: issue.message })
  }
  return problems
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined
    v = (v as Record<PropertyKey, unknown>)[key]
  }
  return v
}

/** Kept here too: `closest` was the registry's before the monitor's evaluator list needed it (src/core). */
export { closest }
