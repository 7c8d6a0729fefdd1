import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isAgentEvalOpsError, type ToolSpec } from '../../../src/core/index.ts'
import { checkValidToolCalls } from '../../../src/evaluators/tool-use/index.ts'
import { ev, trace } from '../trace-fixture.ts'

const tools: ToolSpec[] = [
  {
    name: 'search',
    description: 'web search',
    inputSchema: {
      type: 'object',
      properties: { q: { type: 'string' }, limit: { type: 'integer' } },
      required: ['q'],
      additionalProperties: false,
    },
  },
  {
    name: 'fetch',
    description: 'fetch a page',
    inputSchema: {
      type: 'object',
      properties: { url: { type: 'string' }, mode: { enum: ['text', 'html'] } },
      required: ['url'],
    },
  },
  { name: 'anything', description: 'an empty schema accepts any arguments', inputSchema: {} },
]

/** Which error a thrown value is, so a test fails loudly when nothing (or something else) is thrown. */
function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (e) {
    return e
  }
  return undefined
}

describe('checkValidToolCalls', () => {
  it('passes calls that fit their definitions, naming their steps', () => {
    const events = trace(
      ev.plan('look it up'), // 0
      ev.call('search', { q: 'x', limit: 5 }), // 1
      ev.result('search', []), // 2
      ev.call('fetch', { url: 'https://a', mode: 'html' }), // 3
      ev.call('anything', [1, 'two', null]), // 4
    )
    expect(checkValidToolCalls(events, tools)).toEqual({
      pass: true,
      message: 'all 3 tool calls are valid against the tool definitions (steps 1, 3, 4)',
      steps: [1, 3, 4],
      findings: [],
    })
    expect(checkValidToolCalls(trace(ev.call('anything', 'free text')), tools).message).toBe(
      'the tool call is valid against the tool definitions (step 0)',
    )
    expect(checkValidToolCalls(trace(ev.answer('no tools needed')), tools)).toEqual({
      pass: true,
      message: 'no tool calls to check',
      steps: [],
      findings: [],
    })
  })

  it('reports an unknown tool, a missing argument and a type error in one trace, each at its step', () => {
    const events = trace(
      ev.plan('p'), // 0
      ev.call('search', { q: 'fine' }), // 1
      ev.result('search', []), // 2
      ev.call('rm', { path: '/' }), // 3
      ev.call('fetch', {}), // 4
      ev.call('search', { q: 'y', limit: 2.5 }), // 5
      ev.answer('done'), // 6
    )
    const r = checkValidToolCalls(events, tools)
    expect(r.pass).toBe(false)
    expect(r.steps).toEqual([3, 4, 5])
    expect(r.message).toBe(
      'step 3: unknown tool "rm"; step 4: fetch: missing required argument "url"; step 5: search: /limit must be integer',
    )
    expect(r.findings).toEqual([
      { type: 'unknown_tool', message: 'step 3: unknown tool "rm"', citations: [3] },
      { type: 'missing_argument', message: 'step 4: fetch: missing required argument "url"', citations: [4] },
      { type: 'invalid_arguments', message: 'step 5: search: /limit must be integer', citations: [5] },
    ])
  })

  it('reports every schema error of one call, with the path and what was wrong', () => {
    const r = checkValidToolCalls(
      trace(
        ev.call('search', { limit: 'ten', extra: true }), // 0
        ev.call('fetch', { url: 'u', mode: 'pdf' }), // 1
        ev.call('search', 'just a string'), // 2
      ),
      tools,
    )
    expect(r.findings).toEqual([
      { type: 'missing_argument', message: 'step 0: search: missing required argument "q"', citations: [0] },
      {
        type: 'invalid_arguments',
        message: 'step 0: search: arguments must NOT have additional properties ("extra")',
        citations: [0],
      },
      { type: 'invalid_arguments', message: 'step 0: search: /limit must be integer', citations: [0] },
      {
        type: 'invalid_arguments',
        message: 'step 1: fetch: /mode must be equal to one of the allowed values ("text", "html")',
        citations: [1],
      },
      { type: 'invalid_arguments', message: 'step 2: search: arguments must be object', citations: [2] },
    ])
    expect(r.steps).toEqual([0, 1, 2])
  })

  it('names the missing property and where it is missing, in nested arguments', () => {
    const nested: ToolSpec[] = [
      {
        name: 'book',
        description: '',
        inputSchema: {
          type: 'object',
          properties: { flight: { type: 'object', required: ['from', 'to'] } },
          required: ['flight'],
        },
      },
    ]
    const r = checkValidToolCalls(trace(ev.call('book', { flight: { from: 'CDG' } })), nested)
    expect(r.message).toBe('step 0: book: missing required argument "to" at /flight')
    expect(r.findings.map((f) => f.type)).toEqual(['missing_argument'])
    expect(
      checkValidToolCalls(trace(ev.call('book', { flight: { from: 'CDG', to: 'JFK' } })), nested).pass,
    ).toBe(true)
  })

  it('makes every call unknown when the tool list is empty', () => {
    const r = checkValidToolCalls(trace(ev.call('search', { q: 'x' })), [])
    expect(r).toMatchObject({ pass: false, message: 'step 0: unknown tool "search"', steps: [0] })
  })

  it('checks draft 2020-12 schemas, as zod writes them', () => {
    const inputSchema = z.toJSONSchema(
      z.object({ city: z.string(), days: z.number().int().min(1) }),
    ) as ToolSpec['inputSchema']
    expect(inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
    const weather: ToolSpec[] = [{ name: 'weather', description: '', inputSchema }]
    expect(checkValidToolCalls(trace(ev.call('weather', { city: 'Paris', days: 3 })), weather).pass).toBe(
      true,
    )
    expect(checkValidToolCalls(trace(ev.call('weather', { city: 'Paris', days: 0 })), weather).message).toBe(
      'step 0: weather: /days must be >= 1',
    )
  })

  it('throws CONFIG_INVALID naming the tool when its inputSchema is not valid JSON Schema', () => {
    const broken: ToolSpec[] = [
      ...tools,
      {
        name: 'bad',
        description: '',
        inputSchema: { type: 'object', properties: { n: { type: 'integr' } } },
      },
    ]
    const e = thrown(() => checkValidToolCalls(trace(ev.call('search', { q: 'x' })), broken))
    expect(isAgentEvalOpsError(e, 'CONFIG_INVALID')).toBe(true)
    expect((e as Error).message).toMatch(/^tool "bad" has an invalid inputSchema: schema is invalid/)

    const dangling: ToolSpec[] = [{ name: 'ref', description: '', inputSchema: { $ref: '#/$defs/missing' } }]
    const e2 = thrown(() => checkValidToolCalls([], dangling))
    expect(isAgentEvalOpsError(e2, 'CONFIG_INVALID')).toBe(true)
    expect((e2 as Error).message).toMatch(/^tool "ref" has an invalid inputSchema: can't resolve reference/)
  })

  it('refuses a tool defined twice with different schemas, and accepts an exact duplicate', () => {
    const twice: ToolSpec[] = [tools[0]!, { ...tools[0]!, inputSchema: {} }]
    const e = thrown(() => checkValidToolCalls([], twice))
    expect(isAgentEvalOpsError(e, 'CONFIG_INVALID')).toBe(true)
    expect((e as Error).message).toMatch(/^tool "search" is defined twice, with different inputSchemas/)
    expect(
      checkValidToolCalls(trace(ev.call('search', { q: 'x' })), [tools[0]!, { ...tools[0]! }]).pass,
    ).toBe(true)
  })

  it('tolerates tools that share an $id', () => {
    const shared: ToolSpec[] = [
      {
        name: 'a',
        description: '',
        inputSchema: { $id: 'https://example.com/tool.json', type: 'object', required: ['x'] },
      },
      {
        name: 'b',
        description: '',
        inputSchema: { $id: 'https://example.com/tool.json', type: 'object', required: ['y'] },
      },
    ]
    const r = checkValidToolCalls(trace(ev.call('a', { x: 1 }), ev.call('b', { x: 1 })), shared)
    expect(r.message).toBe('step 1: b: missing required argument "y"')
  })
})
