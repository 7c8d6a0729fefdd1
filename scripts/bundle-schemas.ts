/**
 * The JSON Schemas of the result bundle files (DESIGN §5), generated from the zod schemas in src/core.
 *
 * This is the one list of (file name, schema) pairs: `scripts/generate-schemas.ts` writes what `renderSchemas()`
 * returns into `schemas/`, and `test/schemas.test.ts` fails when the committed files differ from it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as z from 'zod'
import * as core from '../src/core/index.ts'

export const SCHEMA_BASE_URI = `https://agentevalops.dev/schemas/v${core.BUNDLE_FORMAT_VERSION}/`

export interface BundleSchema {
  /** File name under schemas/. */
  file: string
  /** The bundle file it describes (DESIGN §5). */
  describes: string
  title: string
  description: string
  schema: z.ZodType
}

export const BUNDLE_SCHEMAS: readonly BundleSchema[] = [
  {
    file: 'metadata.schema.json',
    describes: 'metadata.json',
    title: 'agentevalops run metadata',
    description:
      'metadata.json of an agentevalops result bundle: who ran what, when, with which configuration.',
    schema: core.RunMetadata,
  },
  {
    file: 'scores.schema.json',
    describes: 'scores.json',
    title: 'agentevalops scores',
    description:
      'scores.json of an agentevalops result bundle: one record per task × trial and the run summary.',
    schema: core.ScoresFile,
  },
  {
    file: 'trace-event.schema.json',
    describes: 'traces.jsonl',
    title: 'agentevalops trace event',
    description: 'One line of traces.jsonl in an agentevalops result bundle: a single typed trace event.',
    schema: core.TraceEvent,
  },
  {
    file: 'recorded-exchange.schema.json',
    describes: 'recordings.jsonl',
    title: 'agentevalops recorded model exchange',
    description:
      'One line of recordings.jsonl in an agentevalops result bundle (and of a __recordings__ cassette): a model ' +
      'request, its response and the attempts it took.',
    schema: core.RecordedExchange,
  },
  {
    file: 'manifest.schema.json',
    describes: 'manifest.json',
    title: 'agentevalops bundle manifest',
    description:
      'manifest.json of an agentevalops result bundle: format version, SHA-256 and size of every file.',
    schema: core.Manifest,
  },
]

type JsonSchema = z.core.JSONSchema.BaseSchema

/**
 * Metadata lookup for toJSONSchema: whatever src/core registered globally (`.describe()`, `.meta()`), plus an `id`
 * for every zod schema src/core exports under its export name, so shared and recursive parts land in `$defs`
 * under readable names (`JsonValue`, `RunnerInfo`, …) instead of `__schema0`. toJSONSchema only calls `get`.
 */
function namingRegistry(root: z.ZodType): z.core.$ZodRegistry<z.core.GlobalMeta> {
  const names = new Map<z.ZodType, string>()
  for (const [name, value] of Object.entries(core).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // The root stays unnamed so its body is the document itself rather than a lone `$ref` into `$defs`.
    if (value instanceof z.ZodType && value !== root && !names.has(value)) names.set(value, name)
  }
  const registry = z.registry<z.core.GlobalMeta>()
  registry.get = <S extends z.core.$ZodType>(schema: S) => {
    const global = z.globalRegistry.get(schema)
    const name = names.get(schema as unknown as z.ZodType)
    if (name === undefined) return global
    return { ...global, id: global?.id ?? name }
  }
  return registry
}

/**
 * Zod's output-mode JSON Schema closes every plain `z.object` with `additionalProperties: false`. Our readers parse
 * with those same (stripping) objects, which accept unknown keys, and fields may grow within a format version
 * (DESIGN §3): so the published contract keeps plain objects open. `z.strictObject` stays closed.
 */
function keepPlainObjectsOpen(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: JsonSchema }): void {
  const def = ctx.zodSchema._zod.def
  if (def.type === 'object' && def.catchall === undefined && ctx.jsonSchema.additionalProperties === false) {
    delete ctx.jsonSchema.additionalProperties
  }
}

function sortedKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** The JSON Schema (as an object) of one bundle file. */
export function bundleJsonSchema(entry: BundleSchema): JsonSchema {
  const generated = z.toJSONSchema(entry.schema, {
    target: 'draft-2020-12',
    // The files as our writer emits them: parsed output, so defaulted fields are always present (required).
    io: 'output',
    // A zod type with no JSON Schema equivalent (a transform, a Date, …) must fail the generator, not become `{}`.
    unrepresentable: 'throw',
    // z.lazy recursion (JsonValue) becomes a $ref into $defs.
    cycles: 'ref',
    // Anything reused but unnamed is inlined; named core exports go to $defs (see namingRegistry).
    reused: 'inline',
    metadata: namingRegistry(entry.schema),
    override: keepPlainObjectsOpen,
  })
  // A fixed head, then zod's own (deterministic, source-ordered) keys, then $defs sorted by name.
  const { $schema, $defs, ...body } = generated
  const out: JsonSchema = {
    $schema,
    $id: SCHEMA_BASE_URI + entry.file,
    title: entry.title,
    description: entry.description,
    ...body,
  }
  delete out.id
  if ($defs) out.$defs = sortedKeys($defs)
  return out
}

/** Serialised schema files, keyed by file name under schemas/: 2-space JSON with a trailing newline. */
export function renderSchemas(): Record<string, string> {
  const files: Record<string, string> = {}
  for (const entry of [...BUNDLE_SCHEMAS].sort((a, b) => (a.file < b.file ? -1 : 1))) {
    files[entry.file] = JSON.stringify(bundleJsonSchema(entry), null, 2) + '\n'
  }
  return files
}

export interface SchemaDirDiff {
  /** Generated files that are absent from the folder. */
  missing: string[]
  /** Files whose bytes differ from what the generator produces now. */
  changed: string[]
  /** Files in the folder the generator does not produce. */
  extra: string[]
}

/** Compares a schemas/ folder with `expected` (file name → content), byte for byte. A missing folder is empty. */
export function diffSchemaDir(dir: string, expected: Record<string, string>): SchemaDirDiff {
  const present = existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []
  const onDisk = new Set(present.map((d) => d.name))
  const diff: SchemaDirDiff = { missing: [], changed: [], extra: [] }
  for (const [file, content] of Object.entries(expected)) {
    if (!onDisk.has(file)) diff.missing.push(file)
    else if (readFileSync(join(dir, file), 'utf8') !== content) diff.changed.push(file)
  }
  diff.extra = [...onDisk].filter((f) => !(f in expected)).sort()
  return diff
}
