import type {
  AgentRunner,
  BenchmarkAdapter,
  Evaluator,
  PolicyChecker,
  ReportGenerator,
  ReportInput,
  Scorer,
} from '../core/index.ts'
import type { JsonObject } from '../core/index.ts'

/** The kinds of adapter a RunConfig (or, for reporters, `agentevalops report --format`) names by id. */
export const ADAPTER_KINDS = ['runner', 'benchmark', 'evaluator', 'policy', 'scorer', 'reporter'] as const
export type AdapterKind = (typeof ADAPTER_KINDS)[number]

/** Where an adapter is created from, for options that name files. */
export interface AdapterContext {
  /** The folder of the RunConfig that names the adapter: its relative paths resolve against it. */
  baseDir: string
}

/** What an id resolves to: a factory that takes the config's `options` for that adapter. */
export interface AdapterFactories {
  runner: (options: JsonObject, context?: AdapterContext) => AgentRunner
  benchmark: (options: JsonObject, context?: AdapterContext) => BenchmarkAdapter
  evaluator: (options: JsonObject, context?: AdapterContext) => Evaluator
  policy: (options: JsonObject, context?: AdapterContext) => PolicyChecker
  scorer: (options: JsonObject, context?: AdapterContext) => Scorer
  /** A report generator: `format` is the file it writes (e.g. `report.md`), `render` its whole text. */
  reporter: (options: JsonObject, context?: AdapterContext) => ReportGenerator<ReportInput>
}

/** Where an adapter came from: built in, or the npm package that provided it. */
export type AdapterSource = { type: 'builtin' } | { type: 'package'; name: string; version: string }

/**
 * What config validation needs to know about the adapters on hand. The registry implements it; the config loader
 * depends only on this, so it can say "unknown runner id … known: …" without building anything.
 */
export interface AdapterCatalog {
  has(kind: AdapterKind, id: string): boolean
  /** Known ids of a kind, sorted. */
  ids(kind: AdapterKind): string[]
  /** A sentence on where an unknown id might come from (e.g. a package to install), or undefined. */
  hintFor(kind: AdapterKind, id: string): string | undefined
  /**
   * The problems of the options a config gives a known adapter, each at its path inside them (so the loader can
   * say `file:line:col agent.options.modle: unknown option. Did you mean "model"?`). Optional: without it, options
   * are checked only when the adapter is built.
   */
  optionProblems?(
    kind: AdapterKind,
    id: string,
    options: JsonObject,
  ): { path: (string | number)[]; message: string }[]
}
