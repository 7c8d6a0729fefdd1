import {
  TracePayloads,
  isPlainValue,
  shapeChecks,
  type TraceEventKind,
  type TracePayload,
} from '../core/index.ts'

const { isObject, isTracePayload } = shapeChecks

/**
 * A hand-written stand-in for the payload schema's safeParse at each event a runner emits (src/engine/run-control.ts),
 * one-sided like src/bundles/trace-event-shape.ts: it returns the payload only where the schema accepts it, built as
 * zod builds it, and undefined for anything it is not sure of; zod then decides and words the error.
 * test/engine/payload-shape.test.ts holds it against the schemas.
 *
 * `copy` is the engine's own JSON copy of the payload (no undefined, no -0, no non-finite number). zod's loose
 * object puts the schema's keys first, in the schema's order, then the rest in their own order, and copies JSON
 * values key for key; a `__proto__` key or a deeper value goes to zod.
 */
export function fastPayload<K extends TraceEventKind>(kind: K, copy: unknown): TracePayload<K> | undefined {
  if (!isObject(copy) || !isPlainValue(copy, MAX_DEPTH) || !isTracePayload(kind, copy)) return undefined
  const known = SHAPE_KEYS[kind]
  const out: Record<string, unknown> = {}
  for (const key of known) if (Object.hasOwn(copy, key)) out[key] = copy[key]
  for (const key of Object.keys(copy)) if (!known.includes(key)) out[key] = copy[key]
  return out as TracePayload<K>
}

const MAX_DEPTH = 64

const SHAPE_KEYS = Object.fromEntries(
  Object.entries(TracePayloads).map(([kind, schema]) => [kind, Object.keys(schema.shape)]),
) as Record<TraceEventKind, string[]>
