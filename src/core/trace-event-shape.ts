import * as z from 'zod'
import { TERMINATED_BY } from './schemas.ts'

/**
 * A hand-written test of the TraceEvent schema (src/core/schemas.ts) for the validator's hot path: zod costs more
 * per event than reading, hashing and JSON.parse together. It is one-sided on purpose: true only for a value the
 * schema accepts, false for anything it is not sure of, and the caller then asks the schema itself (for its verdict
 * and its message). So findings never depend on it; it only decides whether the schema needs to be asked.
 * test/bundles/fast-shapes.test.ts holds it against the schema over the fuzz corpus's mutations.
 *
 * Assumes isPlainValue(value) held: every number is finite and nothing is nested too deep, so JSON values
 * (tool args and results) need no walk of their own.
 */
export function isTraceEvent(value: unknown): boolean {
  if (!isObject(value)) return false
  const v = value
  if (!isNonEmptyString(v['runId']) || !isNonEmptyString(v['taskId'])) return false
  if (v['benchmark'] !== undefined && !isNonEmptyString(v['benchmark'])) return false
  if (!isCount(v['trial']) || !isCount(v['step'])) return false
  const ts = v['ts']
  if (typeof ts !== 'string' || !ISO_TIME.test(ts)) return false
  if (v['costDeltaUsd'] !== undefined && !isNonNegative(v['costDeltaUsd'])) return false
  if (v['tokensDelta'] !== undefined && !isCount(v['tokensDelta'])) return false
  const spanId = v['spanId']
  if (typeof spanId !== 'string' || !SPAN_ID.test(spanId)) return false
  const payload = v['payload']
  if (!isObject(payload)) return false
  const check = typeof v['kind'] === 'string' ? PAYLOADS.get(v['kind']) : undefined
  return check !== undefined && check(payload)
}

/** The payload part of isTraceEvent alone, for a runner's payloads as they enter the engine. Same one-sidedness. */
export function isTracePayload(kind: string, payload: Fields): boolean {
  const check = PAYLOADS.get(kind)
  return check !== undefined && check(payload)
}

type Fields = Record<string, unknown>

/** The schema's `isoTime`, from zod itself: its own pattern, not a copy of it. */
const ISO_TIME: RegExp = z.iso.datetime({ offset: true })._zod.def.pattern!
const SPAN_ID = /^[0-9a-f]{16}$/

const PAYLOADS = new Map<string, (p: Fields) => boolean>([
  ['agent.plan', (p) => typeof p['text'] === 'string'],
  [
    'agent.model_call',
    (p) =>
      optional(p['model'], isString) &&
      optional(p['inputTokens'], isCount) &&
      optional(p['outputTokens'], isCount) &&
      optional(p['stopReason'], isString) &&
      optional(p['text'], isString) &&
      optional(p['status'], (s) => s === 'ok' || s === 'error') &&
      optional(p['attempt'], isPositiveInt) &&
      optional(p['error'], isString),
  ],
  [
    'agent.tool_call',
    (p) => isNonEmptyString(p['tool']) && p['args'] !== undefined && optional(p['callId'], isString),
  ],
  [
    'agent.tool_result',
    (p) =>
      isNonEmptyString(p['tool']) &&
      p['result'] !== undefined &&
      optional(p['isError'], isBoolean) &&
      optional(p['callId'], isString),
  ],
  ['agent.observation', (p) => typeof p['text'] === 'string'],
  ['agent.final_answer', (p) => typeof p['answer'] === 'string'],
  [
    'agent.terminal',
    (p) =>
      typeof p['terminatedBy'] === 'string' &&
      TERMINATED.has(p['terminatedBy']) &&
      isBoolean(p['success']) &&
      (p['error'] === null || isString(p['error'])) &&
      // A thrown error has a schema of its own: rare, so left to zod.
      p['thrown'] === undefined,
  ],
  [
    'evaluator.score',
    (p) =>
      isString(p['evaluatorId']) &&
      typeof p['score'] === 'number' &&
      isBoolean(p['passed']) &&
      p['thrown'] === undefined,
  ],
  [
    'evaluator.model_call',
    (p) =>
      isString(p['evaluatorId']) &&
      isString(p['model']) &&
      isPositiveInt(p['attempt']) &&
      (p['status'] === 'ok' || p['status'] === 'malformed' || p['status'] === 'error') &&
      isNonNegative(p['latencyMs']) &&
      optional(p['inputTokens'], isCount) &&
      optional(p['outputTokens'], isCount) &&
      optional(p['error'], isString),
  ],
  [
    'policy.verdict',
    (p) =>
      isString(p['checkerId']) &&
      (p['verdict'] === 'PASS' || p['verdict'] === 'WARN' || p['verdict'] === 'FAIL'),
  ],
  ['cost.tick', (p) => optional(p['note'], isString)],
])

const TERMINATED: ReadonlySet<string> = new Set(TERMINATED_BY)

export function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function optional(value: unknown, test: (value: unknown) => boolean): boolean {
  return value === undefined || test(value)
}

export function isString(value: unknown): value is string {
  return typeof value === 'string'
}

function isNonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0
}

function isBoolean(value: unknown): boolean {
  return value === true || value === false
}

/** Stricter than zod's int().nonnegative() where they could differ (-0): a doubtful value goes to zod. */
export function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0 && !Object.is(value, -0)
}

function isPositiveInt(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) > 0
}

function isNonNegative(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && !Object.is(value, -0)
}
