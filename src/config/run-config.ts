import * as z from 'zod'
import { JsonValue, type JsonObject, type ResourceLimits } from '../core/index.ts'
import { ENV_REF_SOURCE } from './env-refs.ts'

/**
 * The RunConfig: what one `agentevalops run configs/x.yaml` runs. The YAML side is snake_case and strict (an unknown
 * key is an error at every level except the free-form `options`, `labels` and `filter` mappings); the parsed side
 * is camelCase, with defaults applied and shorthands normalized.
 *
 * Every error message here says what was expected and what came (`expected a positive integer, got "lots"`); the
 * loader adds `file:line:col` and the field path.
 */

// ---------------------------------------------------------------------------------------------------------------
// Messages

/** A config value, shown short: strings quoted, mappings and lists by their kind (their text may be long). */
export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'an empty value'
  if (typeof value === 'string') {
    const short = value.length > 40 ? `${value.slice(0, 40)}…` : value
    return JSON.stringify(short)
  }
  if (Array.isArray(value)) return value.length ? 'a list' : 'an empty list'
  if (typeof value === 'object') return Object.keys(value).length ? 'a mapping' : 'an empty mapping'
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value)
  return `a ${typeof value}`
}

/** Error customization for a schema: every issue it raises reads "expected …, got …" (or "missing …"). */
function expecting(what: string) {
  return {
    error: (iss: { input?: unknown }) =>
      iss.input === undefined
        ? `missing (expected ${what})`
        : `expected ${what}, got ${showValue(iss.input)}`,
  }
}

/** Marks the message of an unknown-key issue; the loader turns it into one finding per key. */
export const UNKNOWN_KEY = 'unknown key'

/** The keys each strict mapping allows, by YAML path pattern (`''` root, `evaluators[]` any list item). */
export const CONFIG_KEYS = new Map<string, readonly string[]>()

function strictMapping<S extends z.ZodRawShape>(where: string, what: string, shape: S) {
  CONFIG_KEYS.set(where, Object.keys(shape))
  const { error } = expecting(what)
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? UNKNOWN_KEY : error(iss)),
  })
}

/** Free-form options: any mapping of JSON values. */
function options(what: string) {
  return z.record(z.string(), JsonValue, expecting(what))
}

// ---------------------------------------------------------------------------------------------------------------
// Field types

const positiveInt = (() => {
  const e = expecting('a positive integer')
  return z.number(e).int(e).positive(e)
})()

const adapterId = (kind: string) => {
  const e = expecting(`a ${kind} id`)
  return z.string(e).min(1, e)
}

const NAME_RE = /^[a-z0-9._-]+$/
// A run id names the bundle's folder: no separators, no `.`/`..`; `${NAME}` references are allowed (e.g. a CI run
// number) and are expanded by whoever creates the run.
const RUN_ID_RE = new RegExp(`^(?!\\.{1,2}$)(?:[A-Za-z0-9._-]|${ENV_REF_SOURCE})+$`)

const name = (() => {
  const e = expecting('a name of lower-case letters, digits, ".", "_" or "-"')
  return z.string(e).max(100, e).regex(NAME_RE, e)
})()

const runId = (() => {
  const e = expecting('a run id of letters, digits, ".", "_" or "-" (a folder name)')
  return z.string(e).max(100, e).regex(RUN_ID_RE, e)
})()

const labels = z.record(
  z.string(),
  z.string(expecting('a string (quote numbers and booleans)')),
  expecting('a mapping of label names to strings'),
)

/** An adapter by id, written `some-id` or `{ id: some-id, options: {…} }`; parsed as `{ id, options }`. */
function adapterRef(kind: string, where: string) {
  const long = strictMapping(where, `a mapping with an ${kind} id`, {
    id: adapterId(kind),
    options: options(`a mapping of ${kind} options`).default({}),
  })
  return z
    .union([adapterId(kind), long], expecting(`an ${kind} id or a mapping { id, options }`))
    .transform((ref): AdapterRef => (typeof ref === 'string' ? { id: ref, options: {} } : ref))
}

const taskIds = z
  .array(
    (() => {
      const e = expecting('a task id')
      return z.string(e).min(1, e)
    })(),
    expecting('a list of task ids'),
  )
  .min(1, expecting('a non-empty list of task ids'))
  .superRefine((ids, ctx) => {
    const seen = new Set<string>()
    ids.forEach((id, i) => {
      if (seen.has(id))
        ctx.addIssue({ code: 'custom', path: [i], message: `task id "${id}" is listed twice` })
      seen.add(id)
    })
  })

// ---------------------------------------------------------------------------------------------------------------
// Sections

const Benchmark = strictMapping('benchmark', 'a mapping with a benchmark id, e.g. { id: toy }', {
  id: adapterId('benchmark'),
  options: options('a mapping of benchmark options').default({}),
  tasks: taskIds.optional(),
  filter: options('a mapping of task metadata to match, e.g. { category: arithmetic }').optional(),
})

const Limits = strictMapping(
  'agent.resource_limits',
  'a mapping of max_tokens, max_turns, max_wall_seconds, max_cost_usd',
  {
    max_tokens: positiveInt.optional(),
    max_turns: positiveInt.optional(),
    max_wall_seconds: (() => {
      const e = expecting('a positive number of seconds')
      return z.number(e).positive(e).optional()
    })(),
    max_cost_usd: (() => {
      const e = expecting('a number of US dollars, 0 or more')
      return z.number(e).nonnegative(e).optional()
    })(),
  },
).transform((l): ResourceLimits => {
  const limits: ResourceLimits = {}
  if (l.max_tokens !== undefined) limits.maxTokens = l.max_tokens
  if (l.max_turns !== undefined) limits.maxTurns = l.max_turns
  if (l.max_wall_seconds !== undefined) limits.maxWallSeconds = l.max_wall_seconds
  if (l.max_cost_usd !== undefined) limits.maxCostUsd = l.max_cost_usd
  return limits
})

const Agent = strictMapping('agent', 'a mapping with a runner id, e.g. { runner: mock-scripted }', {
  runner: adapterId('runner'),
  options: options('a mapping of runner options').default({}),
  resource_limits: Limits.default({}),
}).transform(({ runner, options, resource_limits }) => ({
  runner,
  options,
  resourceLimits: resource_limits,
}))

const Gate = z
  .union(
    [
      z.literal('each'),
      strictMapping('gate', 'a mapping { min_pass_rate }', {
        min_pass_rate: (() => {
          const e = expecting('a pass rate between 0 and 1')
          return z.number(e).min(0, e).max(1, e)
        })(),
      }),
    ],
    expecting('"each" or a mapping { min_pass_rate: 0..1 }'),
  )
  .transform((g): GateConfig => (g === 'each' ? g : { minPassRate: g.min_pass_rate }))

const Storage = strictMapping('storage', 'a mapping { runs_dir }', {
  runs_dir: (() => {
    const e = expecting('a folder path')
    return z.string(e).min(1, e)
  })().default('runs'),
}).transform((s) => ({ runsDir: s.runs_dir }))

const fraction = (what: string) => {
  const e = expecting(what)
  return z.number(e).min(0, e).max(1, e)
}

const flag = (() => {
  const e = expecting('true or false')
  return z.boolean(e)
})()

/** The compare options a config sets, as the scorers' CompareOptions names them (config does not import scorers). */
export interface ConfigCompare {
  failOnBroken?: boolean
  maxDrop?: number
  alpha?: number
  minPairs?: number
  force?: boolean
}

/**
 * How a baseline given to the run (`--baseline`, AGENTEVALOPS_BASELINE) is compared with (docs/statistics.md);
 * checked in full where the comparison is made.
 */
const Compare = strictMapping('compare', 'a mapping of fail_on_broken, max_drop, alpha, min_pairs, force', {
  fail_on_broken: flag.optional(),
  max_drop: fraction('a drop of a pass rate between 0 and 1').optional(),
  alpha: (() => {
    const e = expecting('a significance level above 0 and below 1, e.g. 0.05')
    return z.number(e).gt(0, e).lt(1, e)
  })().optional(),
  min_pairs: positiveInt.optional(),
  force: flag.optional(),
}).transform((c): ConfigCompare => {
  const options: ConfigCompare = {}
  if (c.fail_on_broken !== undefined) options.failOnBroken = c.fail_on_broken
  if (c.max_drop !== undefined) options.maxDrop = c.max_drop
  if (c.alpha !== undefined) options.alpha = c.alpha
  if (c.min_pairs !== undefined) options.minPairs = c.min_pairs
  if (c.force !== undefined) options.force = c.force
  return options
})

/** The RunConfig schema: snake_case YAML in, camelCase out. */
export const RunConfig = strictMapping('', 'a mapping with at least name, benchmark and agent', {
  name,
  run_id: runId.optional(),
  labels: labels.default({}),
  benchmark: Benchmark,
  agent: Agent,
  evaluators: z.array(adapterRef('evaluator', 'evaluators[]'), expecting('a list of evaluators')).default([]),
  policy: z.array(adapterRef('policy', 'policy[]'), expecting('a list of policy checkers')).default([]),
  scorer: adapterId('scorer').default('stats'),
  trials: positiveInt.default(1),
  concurrency: positiveInt.default(10),
  gate: Gate.default('each'),
  storage: Storage.default({ runsDir: 'runs' }),
  compare: Compare.optional(),
}).transform(({ name, run_id, ...rest }) => ({
  name,
  ...(run_id === undefined ? {} : { runId: run_id }),
  ...rest,
}))

/** An adapter named by id, with the options its factory takes (kept as written: snake_case, env refs unexpanded). */
export interface AdapterRef {
  id: string
  options: JsonObject
}

/** Every trial must pass, or the aggregate pass rate must reach `minPassRate`. */
export type GateConfig = 'each' | { minPassRate: number }

export type RunConfig = z.infer<typeof RunConfig>
/** The YAML side of a RunConfig, before defaults and the camelCase mapping. */
export type RunConfigInput = z.input<typeof RunConfig>
