import { describe, expect, it } from 'vitest'
import '../../plugin/matchers.ts'
import { defineTask, type ToolSpec } from '../../src/core/index.ts'
import type { ReferenceCall } from '../../src/evaluators/index.ts'
import { ev, trace } from '../evaluators/trace-fixture.ts'
import { failureOf } from './failure-of.ts'

const tools: ToolSpec[] = [
  {
    name: 'search',
    description: '',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  },
  {
    name: 'fetch',
    description: '',
    inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
  },
]

const events = trace(
  ev.plan('search, then fetch'), // 0
  ev.call('search', { q: 'vitest' }), // 1
  ev.result('search', ['https://vitest.dev']), // 2
  ev.call('fetch', { url: 'https://vitest.dev' }), // 3
  ev.result('fetch', 'Vitest is a test runner'), // 4
  ev.answer('Vitest is a test runner.'), // 5
)

const broken = trace(
  ev.call('search', { query: 'vitest' }), // 0: required q missing
  ev.call('rm', { path: '/' }), // 1: unknown tool
  ev.call('fetch', { url: 7 }), // 2: wrong type
)

describe('toMatchTrajectory', () => {
  const reference: ReferenceCall[] = [
    { tool: 'search', args: { q: 'vitest' } },
    { tool: 'fetch', args: { url: 'https://vitest.dev' } },
  ]

  it('passes on the same calls in order (exact, the default) and in any order when unordered', () => {
    expect(events).toMatchTrajectory(reference)
    expect(events).toMatchTrajectory([...reference].reverse(), { mode: 'unordered' })
    expect(events).toMatchTrajectory([{ tool: 'fetch' }], { mode: 'contains' })
  })

  it('fails naming the call and step that differ', () => {
    expect(failureOf(() => expect(events).toMatchTrajectory([...reference].reverse()))).toMatch(
      /^exact: call #1 expected fetch \{"url":"https:\/\/vitest.dev"\} but it came later, as call #2 at step 3/,
    )
    expect(failureOf(() => expect(events).toMatchTrajectory([reference[0]!], { mode: 'within' }))).toBe(
      'within: unexpected call fetch {"url":"https://vitest.dev"} at step 3',
    )
  })

  it('uses per-tool argument matchers, and .not explains a match', () => {
    expect(events).toMatchTrajectory([{ tool: 'search', args: { q: 'VITEST' } }, reference[1]!], {
      args: {
        search: (actual, expected) =>
          JSON.stringify(actual).toLowerCase() === JSON.stringify(expected).toLowerCase(),
      },
    })
    expect(events).not.toMatchTrajectory([{ tool: 'fetch' }])
    expect(failureOf(() => expect(events).not.toMatchTrajectory(reference))).toMatch(
      /^expected the tool calls not to match the reference \(exact\), but /,
    )
  })
})

describe('toHaveValidToolCalls', () => {
  it('passes when every call fits its tool definition', () => {
    expect(events).toHaveValidToolCalls(tools)
  })

  it('fails listing each invalid call with its step', () => {
    const message = failureOf(() => expect(broken).toHaveValidToolCalls(tools))
    expect(message).toContain('step 0: search: missing required argument "q"')
    expect(message).toContain('step 1: unknown tool "rm"')
    expect(message).toContain('step 2: fetch: /url must be string')
  })

  it("takes the definitions from a received trial's task, and says what it needs when there are none", () => {
    const task = defineTask({ id: 't', benchmark: 'b', prompt: 'p', tools })
    expect({ task, events }).toHaveValidToolCalls()
    expect({ task, events: broken }).not.toHaveValidToolCalls()
    expect(() => expect(events).toHaveValidToolCalls()).toThrow(
      'toHaveValidToolCalls: give the tool definitions, or a trial whose task has tools',
    )
  })
})
