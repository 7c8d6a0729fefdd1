import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import {
  Manifest,
  RecordedExchange,
  RunMetadata,
  ScoresFile,
  TraceEvent,
  TrialRecord,
} from '../src/core/index.ts'
import { DEFAULT_SUMMARY_SETTINGS, summarizeTrials } from '../src/scorers/index.ts'
import { BUNDLE_SCHEMAS, diffSchemaDir, renderSchemas, SCHEMA_BASE_URI } from '../scripts/bundle-schemas.ts'

const schemasDir = fileURLToPath(new URL('../schemas/', import.meta.url))

describe('schemas/ (JSON Schemas of the bundle files)', () => {
  it('matches what scripts/generate-schemas.ts produces now, file for file', () => {
    const diff = diffSchemaDir(schemasDir, renderSchemas())
    const problems = [
      ...diff.changed.map((f) => `schemas/${f}: differs from the zod schemas in src/core`),
      ...diff.missing.map((f) => `schemas/${f}: missing`),
      ...diff.extra.map((f) => `schemas/${f}: not produced by the generator`),
    ]
    expect(problems, 'schemas/ is stale: run npm run schemas').toEqual([])
  })

  it('renders deterministically: 2-space JSON, trailing newline, $id and title on every file', () => {
    const a = renderSchemas()
    expect(renderSchemas()).toEqual(a)
    expect(Object.keys(a).sort()).toEqual(BUNDLE_SCHEMAS.map((s) => s.file).sort())
    for (const [file, text] of Object.entries(a)) {
      expect(text.endsWith('}\n')).toBe(true)
      const parsed = JSON.parse(text) as JsonSchema
      expect(JSON.stringify(parsed, null, 2) + '\n').toBe(text)
      expect(parsed.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
      expect(parsed.$id).toBe(`${SCHEMA_BASE_URI}${file}`)
      expect(parsed.$id).toMatch(/^https:\/\/agentevalops\.dev\/schemas\/v\d+\/[a-z-]+\.schema\.json$/)
      expect(typeof parsed.title).toBe('string')
    }
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Agreement with zod. No JSON Schema validator is installed, so a deliberately small one checks the keywords our
// generated schemas use, and throws on any other keyword so that a new one cannot be silently ignored.

type JsonSchema = { [keyword: string]: unknown }

const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', 'default', 'format', '$defs'])

function typeOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}

function hasType(v: unknown, type: string): boolean {
  if (type === 'integer') return Number.isInteger(v)
  return typeOf(v) === type
}

/** Errors of `value` against `root` (empty when valid). */
function validate(root: JsonSchema, value: unknown): string[] {
  const errorsOf = (schema: JsonSchema | boolean, v: unknown, at: string): string[] => {
    if (schema === true) return []
    if (schema === false) return [`${at}: no value allowed here`]
    const errors: string[] = []
    const obj = typeOf(v) === 'object' ? (v as Record<string, unknown>) : undefined
    const num = typeof v === 'number' ? v : undefined
    for (const [keyword, arg] of Object.entries(schema)) {
      switch (keyword) {
        case '$ref': {
          const m = /^#\/\$defs\/(.+)$/.exec(arg as string)
          const target = m && (root.$defs as Record<string, JsonSchema> | undefined)?.[m[1]!]
          if (!target) throw new Error(`unresolvable $ref ${String(arg)}`)
          errors.push(...errorsOf(target, v, at))
          break
        }
        case 'type': {
          const types = Array.isArray(arg) ? (arg as string[]) : [arg as string]
          if (!types.some((t) => hasType(v, t)))
            errors.push(`${at}: expected ${types.join('|')}, got ${typeOf(v)}`)
          break
        }
        case 'const':
          if (v !== arg) errors.push(`${at}: expected ${JSON.stringify(arg)}`)
          break
        case 'enum':
          if (!(arg as unknown[]).includes(v)) errors.push(`${at}: not one of ${JSON.stringify(arg)}`)
          break
        case 'properties':
          if (obj)
            for (const [k, s] of Object.entries(arg as Record<string, JsonSchema>))
              if (k in obj) errors.push(...errorsOf(s, obj[k], `${at}.${k}`))
          break
        case 'required':
          if (obj) for (const k of arg as string[]) if (!(k in obj)) errors.push(`${at}: missing ${k}`)
          break
        case 'additionalProperties':
          if (obj) {
            const known = Object.keys(schema.properties ?? {})
            for (const [k, pv] of Object.entries(obj))
              if (!known.includes(k)) errors.push(...errorsOf(arg as JsonSchema | boolean, pv, `${at}.${k}`))
          }
          break
        case 'propertyNames':
          if (obj)
            for (const k of Object.keys(obj))
              errors.push(...errorsOf(arg as JsonSchema, k, `${at}[key ${k}]`))
          break
        case 'items':
          if (Array.isArray(v))
            v.forEach((item, i) => errors.push(...errorsOf(arg as JsonSchema, item, `${at}[${i}]`)))
          break
        case 'anyOf':
        case 'oneOf': {
          const passing = (arg as JsonSchema[]).filter((s) => errorsOf(s, v, at).length === 0).length
          if (keyword === 'anyOf' ? passing === 0 : passing !== 1)
            errors.push(`${at}: ${passing} of the ${keyword} branches match`)
          break
        }
        case 'minimum':
          if (num !== undefined && num < (arg as number)) errors.push(`${at}: below ${String(arg)}`)
          break
        case 'maximum':
          if (num !== undefined && num > (arg as number)) errors.push(`${at}: above ${String(arg)}`)
          break
        case 'exclusiveMinimum':
          if (num !== undefined && num <= (arg as number)) errors.push(`${at}: not above ${String(arg)}`)
          break
        case 'exclusiveMaximum':
          if (num !== undefined && num >= (arg as number)) errors.push(`${at}: not below ${String(arg)}`)
          break
        case 'minLength':
          if (typeof v === 'string' && [...v].length < (arg as number)) errors.push(`${at}: too short`)
          break
        case 'pattern':
          if (typeof v === 'string' && !new RegExp(arg as string, 'u').test(v))
            errors.push(`${at}: does not match`)
          break
        default:
          if (!ANNOTATIONS.has(keyword))
            throw new Error(`the test's mini validator does not know "${keyword}"`)
      }
    }
    return errors
  }
  return errorsOf(root, value, '$')
}

const rendered = renderSchemas()
const jsonSchemaOf = (file: string): JsonSchema => JSON.parse(rendered[file]!) as JsonSchema

const runId = '01936f5e-7a3c-7b2d-9c1e-0123456789ab'
const sha = 'a'.repeat(64)
const benchmark = { id: 'toy', version: '1', datasetChecksum: sha }
const runner = { name: 'mock-scripted', kind: 'mock', config: { script: [{ say: 'hi' }, null, 3] } }

const metadata = {
  schemaVersion: 3,
  runId,
  status: 'complete',
  labels: { team: 'evals' },
  target: runner,
  targets: [runner],
  benchmark,
  benchmarks: [benchmark],
  startedAt: '2025-01-01T00:00:00.000Z',
  finishedAt: '2025-01-01T00:00:02.500+01:00',
  durationSec: 2.5,
  sdkVersion: '0.1.0',
  git: { sha: null, dirty: null },
  node: 'v20.20.2',
  vitest: '4.1.12',
  configHash: sha,
  seed: 42,
  shard: { index: 1, count: 2 },
  vitestProject: 'evals',
  testNamePattern: null,
  trialCount: 1,
  resumedFrom: [],
}

const trialRecord = {
  runId,
  benchmark,
  taskId: 't1',
  taskChecksum: sha,
  trial: 0,
  outcome: 'passed',
  passed: true,
  result: {
    success: true,
    finalAnswer: '4',
    artifacts: [{ name: 'out', path: 'artifacts/out.txt' }],
    error: null,
    totalCostUsd: 0.01,
    totalTokens: 120,
    turns: 2,
    wallSeconds: 0.5,
    terminatedBy: 'completed',
  },
  scores: [
    {
      evaluatorId: 'exact',
      kind: 'deterministic',
      score: 1,
      passed: true,
      costUsd: 0,
      latencyMs: 1,
      explanation: 'matches',
      citations: [3],
      findings: [{ type: 'exact', message: 'answer equals "4"', citations: [3] }],
      error: null,
    },
  ],
  verdicts: [
    {
      checkerId: 'cost',
      verdict: 'WARN',
      findings: [{ message: 'close to the ceiling', severity: 'WARN', citations: [] }],
    },
  ],
  usage: { tokens: 120, costUsd: 0.01, wallSeconds: 0.5, turns: 2 },
  runner,
  tracePath: 'traces/t1-0.jsonl',
  eventCount: 4,
  warnings: [],
  labels: { category: 'arithmetic' },
  keys: null,
  reusedFrom: null,
}

const { runId: _trialRunId, ...scoredTrial } = trialRecord
const scores = {
  schemaVersion: 3,
  trials: [scoredTrial],
  summary: summarizeTrials([TrialRecord.parse(trialRecord)], DEFAULT_SUMMARY_SETTINGS),
}

const event = {
  runId,
  benchmark: 'toy',
  taskId: 't1',
  trial: 0,
  step: 1,
  ts: '2025-01-01T00:00:00.100Z',
  costDeltaUsd: 0,
  tokensDelta: 0,
  spanId: '0123456789abcdef',
  kind: 'agent.tool_call',
  payload: { tool: 'search', args: { q: 'x', deep: [1, { a: null, b: [true, 'y'] }] }, callId: 'c1' },
}

const manifest = {
  formatVersion: 1,
  runId,
  createdAt: '2025-01-01T00:00:03Z',
  files: [{ path: 'metadata.json', sha256: sha, size: 512 }],
}

/**
 * A deep copy of `base` with edits applied: each key is a dotted path (`trials.0.scores.0.score`), each value
 * the new value at that path, or `undefined` to delete the key.
 */
function variant(base: object, edits: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(base) as Record<string, unknown>
  for (const [path, value] of Object.entries(edits)) {
    const keys = path.split('.')
    const last = keys.pop()!
    let at = copy
    for (const k of keys) at = at[k] as Record<string, unknown>
    if (value === undefined) delete at[last]
    else at[last] = value
  }
  return copy
}

interface Case {
  file: string
  zod: z.ZodType
  valid: Record<string, Record<string, unknown>>
  invalid: Record<string, Record<string, unknown>>
}

const exchange = {
  v: 1,
  taskId: 'HumanEval/0',
  trial: 0,
  key: 'b'.repeat(64),
  ordinal: 0,
  request: { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'hi' }] },
  response: { content: [{ type: 'text', text: 'hello' }] },
  attempts: [{ attempt: 1, status: 'ok', latencyMs: 12 }],
  recordedAt: '2025-01-02T03:04:05.000Z',
}

const cases: Case[] = [
  {
    file: 'metadata.schema.json',
    zod: RunMetadata,
    valid: {
      'a complete record': metadata,
      'a nullable target, shard and seed': variant(metadata, { target: null, shard: null, seed: null }),
    },
    invalid: {
      'runId missing': variant(metadata, { runId: undefined }),
      'an unknown status': variant(metadata, { status: 'done' }),
      'a newer schemaVersion': variant(metadata, { schemaVersion: 4 }),
      'shard index 0': variant(metadata, { 'shard.index': 0 }),
      'a label that is not a string': variant(metadata, { 'labels.n': 1 }),
      'a timestamp without offset': variant(metadata, { startedAt: '2025-01-01T00:00:00' }),
      'a fractional seed': variant(metadata, { seed: 1.5 }),
    },
  },
  {
    file: 'scores.schema.json',
    zod: ScoresFile,
    valid: {
      'one trial and its summary': scores,
      'a trial without an agent result': variant(scores, { 'trials.0.result': null }),
    },
    invalid: {
      'a score above 1': variant(scores, { 'trials.0.scores.0.score': 1.5 }),
      'a PASS finding': variant(scores, { 'trials.0.verdicts.0.findings.0.severity': 'PASS' }),
      'an unknown outcome': variant(scores, { 'trials.0.outcome': 'skipped' }),
      'an unknown outcome key in the summary': variant(scores, { 'summary.outcomes': { skipped: 1 } }),
      'a negative token count': variant(scores, { 'summary.usage.tokens': -1 }),
      'a NaN-free null turned into a string': variant(scores, { 'summary.headline.primary.rate': 'n/a' }),
      'an unknown verdict': variant(scores, {
        'summary.comparison': { verdict: 'MAYBE' },
      }),
    },
  },
  {
    file: 'trace-event.schema.json',
    zod: TraceEvent,
    valid: {
      'a tool call with nested JSON args': event,
      'a terminal event': variant(event, {
        kind: 'agent.terminal',
        payload: { terminatedBy: 'limit_turns', success: false, error: 'too many turns' },
      }),
      'a payload with extra keys': variant(event, {
        kind: 'agent.plan',
        payload: { text: 'first search', confidence: 0.5 },
      }),
      'an event of format 1 or 2, which names no benchmark': variant(event, { benchmark: undefined }),
    },
    invalid: {
      'an unknown kind': variant(event, { kind: 'agent.dream' }),
      'a payload of another kind': variant(event, { kind: 'agent.final_answer' }),
      'a bad span id': variant(event, { spanId: 'xyz' }),
      'an empty benchmark id': variant(event, { benchmark: '' }),
      'a negative step': variant(event, { step: -1 }),
      'a terminal event with an unknown reason': variant(event, {
        kind: 'agent.terminal',
        payload: { terminatedBy: 'bored', success: false, error: null },
      }),
    },
  },
  {
    file: 'manifest.schema.json',
    zod: Manifest,
    valid: { 'one file': manifest, 'no files': variant(manifest, { files: [] }) },
    invalid: {
      'a short checksum': variant(manifest, { 'files.0.sha256': 'abc' }),
      'a future format version': variant(manifest, { formatVersion: 4 }),
      'a negative size': variant(manifest, { 'files.0.size': -1 }),
      'files missing': variant(manifest, { files: undefined }),
    },
  },
  {
    file: 'recorded-exchange.schema.json',
    zod: RecordedExchange,
    valid: {
      'an ok exchange': exchange,
      'a failed one': variant(exchange, { response: null, error: 'HTTP 500' }),
      "one that names its trial's benchmark": variant(exchange, { benchmark: 'humaneval@weak' }),
    },
    invalid: {
      'a short key': variant(exchange, { key: 'abc' }),
      'a negative trial': variant(exchange, { trial: -1 }),
      'another version': variant(exchange, { v: 2 }),
      'no request': variant(exchange, { request: undefined }),
    },
  },
]

describe('the generated JSON Schemas agree with zod', () => {
  it('covers every generated file', () => {
    expect(cases.map((c) => c.file).sort()).toEqual(Object.keys(rendered).sort())
  })

  for (const c of cases) {
    describe(c.file, () => {
      const schema = jsonSchemaOf(c.file)
      for (const [name, sample] of Object.entries(c.valid)) {
        it(`accepts ${name}, as zod does (and zod's parsed output too)`, () => {
          const parsed = c.zod.safeParse(sample)
          expect(parsed.error?.issues ?? []).toEqual([])
          expect(validate(schema, sample)).toEqual([])
          expect(validate(schema, parsed.data)).toEqual([])
        })
      }
      for (const [name, sample] of Object.entries(c.invalid)) {
        it(`rejects ${name}, as zod does`, () => {
          expect(c.zod.safeParse(sample).success).toBe(false)
          expect(validate(schema, sample)).not.toEqual([])
        })
      }
    })
  }

  it('describes the file as written: defaulted fields are required, unknown keys are allowed', () => {
    const schema = jsonSchemaOf('metadata.schema.json')
    const withoutLabels = variant(metadata, { labels: undefined })
    // zod fills the default when reading …
    expect(RunMetadata.safeParse(withoutLabels).success).toBe(true)
    // … but a writer always writes it, so the published contract requires it.
    expect(validate(schema, withoutLabels)).toEqual(['$: missing labels'])
    // Fields may grow within a format version; zod strips unknown keys on read rather than rejecting them.
    const withExtra = { ...metadata, addedLater: true }
    expect(RunMetadata.safeParse(withExtra).success).toBe(true)
    expect(validate(schema, withExtra)).toEqual([])
  })

  it("lists as required exactly the keys zod's output always has", () => {
    const outputKeys = (shape: Record<string, z.ZodType>) =>
      Object.entries(shape)
        .filter(([, s]) => s._zod.optout !== 'optional')
        .map(([k]) => k)
    const roots = {
      'metadata.schema.json': RunMetadata,
      'scores.schema.json': ScoresFile,
      'manifest.schema.json': Manifest,
    }
    for (const [file, zodSchema] of Object.entries(roots)) {
      const schema = jsonSchemaOf(file)
      expect(schema.required, file).toEqual(outputKeys(zodSchema.shape))
      expect(Object.keys(schema.properties as object), file).toEqual(Object.keys(zodSchema.shape))
    }
    // traces.jsonl: one oneOf branch per event kind, each requiring the same keys.
    const branches = jsonSchemaOf('trace-event.schema.json').oneOf as JsonSchema[]
    const kinds = TraceEvent.options.map((o) => (o.shape.kind as z.ZodLiteral<string>).value)
    expect(branches.map((b) => (b.properties as Record<string, JsonSchema>).kind!.const)).toEqual(kinds)
    TraceEvent.options.forEach((option, i) => expect(branches[i]!.required).toEqual(outputKeys(option.shape)))
  })

  it('keeps optional keys optional', () => {
    const payload = (
      (jsonSchemaOf('trace-event.schema.json').oneOf as JsonSchema[]).find(
        (b) => (b.properties as Record<string, JsonSchema>).kind!.const === 'agent.model_call',
      )!.properties as Record<string, JsonSchema>
    ).payload!
    expect(payload.required).toBeUndefined()
    expect(Object.keys(payload.properties as object)).toEqual([
      'model',
      'inputTokens',
      'outputTokens',
      'stopReason',
      'text',
      'status',
      'attempt',
      'error',
    ])
  })
})

describe("the test's mini validator", () => {
  it('throws on a keyword it does not implement, so it cannot pass by ignoring one', () => {
    expect(() => validate({ type: 'string', maxLength: 3 }, 'abcd')).toThrow(/maxLength/)
  })
})
