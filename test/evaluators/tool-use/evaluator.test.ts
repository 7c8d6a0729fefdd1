import { describe, expect, it } from 'vitest'
import { isAgentEvalOpsError, type JsonValue, type TaskSpec, type ToolSpec } from '../../../src/core/index.ts'
import { toolUse, trajectoryMatch } from '../../../src/evaluators/tool-use/index.ts'
import { ev, trace, viewOf } from '../trace-fixture.ts'
import { evaluateChecked, rejection } from '../evaluate.ts'

const tools: ToolSpec[] = [
  {
    name: 'search',
    description: '',
    inputSchema: {
      type: 'object',
      properties: { q: { type: 'string' }, limit: { type: 'integer' } },
      required: ['q'],
    },
  },
  { name: 'fetch', description: '', inputSchema: { type: 'object', required: ['url'] } },
]

const good = trace(
  ev.plan('p'), // 0
  ev.call('search', { q: 'x' }), // 1
  ev.result('search', ['u']), // 2
  ev.call('fetch', { url: 'u' }), // 3
  ev.answer('done'), // 4
)

const bad = trace(
  ev.plan('p'), // 0
  ev.call('search', { q: 'fine' }), // 1
  ev.result('search', []), // 2
  ev.call('rm', { path: '/' }), // 3
  ev.call('fetch', {}), // 4
  ev.call('search', { q: 'y', limit: 2.5 }), // 5
  ev.call('search', { q: 'z', limit: 3 }), // 6
  ev.answer('done'), // 7
)

const run = evaluateChecked

describe('toolUse', () => {
  it('scores valid calls / all calls, citing and explaining each finding', async () => {
    const evaluator = toolUse({ tools })
    expect(evaluator).toMatchObject({ id: 'tool-use', kind: 'tool_use' })
    const out = await run(evaluator, viewOf(bad))
    expect(out).toEqual({
      score: 2 / 5,
      passed: false,
      costUsd: 0,
      explanation:
        '3 of 5 tool calls invalid: step 3: unknown tool "rm"; step 4: fetch: missing required argument "url"; step 5: search: /limit must be integer',
      citations: [3, 4, 5],
      findings: [
        { type: 'unknown_tool', message: 'step 3: unknown tool "rm"', citations: [3] },
        {
          type: 'missing_argument',
          message: 'step 4: fetch: missing required argument "url"',
          citations: [4],
        },
        { type: 'invalid_arguments', message: 'step 5: search: /limit must be integer', citations: [5] },
      ],
    })
  })

  it('counts a call with several findings once', async () => {
    const out = await run(
      toolUse({ tools }),
      viewOf(trace(ev.call('search', { limit: 'x' }), ev.call('search', { q: 'ok' }))),
    )
    expect(out.findings).toHaveLength(2)
    expect(out.score).toBe(0.5)
  })

  it("falls back to the task's tools and passes valid calls, citing them", async () => {
    const out = await run(toolUse({ id: 'tools-ok' }), viewOf(good, { task: { tools } }))
    expect(out).toEqual({
      score: 1,
      passed: true,
      costUsd: 0,
      explanation: 'all 2 tool calls are valid against the tool definitions (steps 1, 3)',
      citations: [1, 3],
      findings: [],
    })
    // The options win over the task: against these definitions nothing is known.
    const other: ToolSpec[] = [{ name: 'other', description: '', inputSchema: {} }]
    expect((await run(toolUse({ tools: other }), viewOf(good, { task: { tools } }))).score).toBe(0)
  })

  it('scores 1 when there is nothing to check against, or nothing to check', async () => {
    expect(await run(toolUse(), viewOf(bad))).toEqual({
      score: 1,
      passed: true,
      costUsd: 0,
      explanation: 'no tool definitions to check against',
      citations: [],
      findings: [],
    })
    expect(await run(toolUse({ tools }), viewOf(trace(ev.answer('a'))))).toMatchObject({
      score: 1,
      passed: true,
      explanation: 'no tool calls to check',
    })
  })

  it('an invalid inputSchema is CONFIG_INVALID when the evaluator is created, naming the tool', () => {
    const broken: ToolSpec[] = [{ name: 'bad', description: '', inputSchema: { type: 'objekt' } }]
    let error: unknown
    try {
      toolUse({ tools: broken })
    } catch (e) {
      error = e
    }
    expect(isAgentEvalOpsError(error, 'CONFIG_INVALID')).toBe(true)
    expect((error as Error).message).toMatch(/^tool "bad" has an invalid inputSchema/)
    expect((error as { hint?: string }).hint).toMatch(/valid JSON Schema/)
  })

  it("a task's invalid inputSchema makes the evaluator throw (could not judge), not fail the agent", async () => {
    const view = viewOf(good, {
      task: { tools: [{ name: 'search', description: '', inputSchema: { required: 'q' } }] },
    })
    const error = await rejection(() => toolUse().evaluate(view))
    expect(isAgentEvalOpsError(error, 'CONFIG_INVALID')).toBe(true)
    expect((error as Error).message).toMatch(/^tool "search" has an invalid inputSchema/)
  })
})

const reference: { tool: string; args: JsonValue }[] = [
  { tool: 'search', args: { q: 'x' } },
  { tool: 'fetch', args: { url: 'u' } },
]

describe('trajectoryMatch', () => {
  it("reads the task's metadata.reference_trajectory and passes, citing the matched calls", async () => {
    const evaluator = trajectoryMatch()
    expect(evaluator).toMatchObject({ id: 'trajectory-match', kind: 'tool_use' })
    const out = await run(
      evaluator,
      viewOf(good, { task: { metadata: { reference_trajectory: reference } } }),
    )
    expect(out).toEqual({
      score: 1,
      passed: true,
      costUsd: 0,
      explanation: 'exact: the 2 calls match the reference in order (steps 1, 3)',
      citations: [1, 3],
      findings: [],
    })
  })

  it('exact: scores 0 on any difference, citing the union of the findings', async () => {
    const events = trace(
      ev.call('search', { q: 'x' }), // 0
      ev.call('fetch', { url: 'u' }), // 1
      ev.call('log', {}), // 2
    )
    const out = await run(
      trajectoryMatch({ reference: [{ tool: 'search' }, { tool: 'fetch', args: { url: 'v' } }] }),
      viewOf(events),
    )
    expect(out).toMatchObject({
      score: 0,
      passed: false,
      explanation:
        'exact: call #2 expected fetch {"url":"v"} but got fetch {"url":"u"} at step 1; unexpected call log {} at step 2',
      citations: [1, 2],
    })
    expect(out.findings?.map((f) => f.type)).toEqual(['argument_mismatch', 'unexpected_call'])
  })

  it('exact: a wrong call out of place is missing where expected and unexpected where made', async () => {
    const out = await run(
      trajectoryMatch({ reference: [{ tool: 'fetch', args: { url: 'v' } }, { tool: 'search' }] }),
      viewOf(good),
    )
    expect(out).toMatchObject({
      score: 0,
      passed: false,
      explanation:
        'exact: missing reference call #1 fetch {"url":"v"} (closest: fetch {"url":"u"} at step 3); unexpected call fetch {"url":"u"} at step 3',
      citations: [3],
    })
    expect(out.findings?.map((f) => f.type)).toEqual(['missing_call', 'unexpected_call'])
  })

  it('options win over the metadata', async () => {
    const view = viewOf(good, { task: { metadata: { reference_trajectory: [{ tool: 'nope' }] } } })
    expect((await run(trajectoryMatch({ reference }), view)).passed).toBe(true)
    expect((await run(trajectoryMatch(), view)).passed).toBe(false)
  })

  it('multiset modes score the matched share', async () => {
    const three = trace(ev.call('search', { q: 'x' }), ev.call('fetch', { url: 'u' }), ev.call('log', {}))
    const view = viewOf(three, {
      task: { metadata: { reference_trajectory: [...reference, { tool: 'save' }] } },
    })
    // unordered: 2 matched / max(3 reference, 3 calls)
    expect(await run(trajectoryMatch({ mode: 'unordered' }), view)).toMatchObject({
      score: 2 / 3,
      passed: false,
      citations: [2],
    })
    // contains: 2 matched / 3 reference calls; extra calls do not count
    expect(await run(trajectoryMatch({ mode: 'contains' }), view)).toMatchObject({
      score: 2 / 3,
      passed: false,
      explanation: 'contains: missing reference call #3 save (any arguments)',
      citations: [],
    })
    // within: 2 matched / 3 calls
    expect(await run(trajectoryMatch({ mode: 'within' }), view)).toMatchObject({
      score: 2 / 3,
      passed: false,
      explanation: 'within: unexpected call log {} at step 2',
      citations: [2],
    })
    const two = viewOf(trace(ev.call('fetch', { url: 'u' }), ev.call('search', { q: 'x' })), {
      task: { metadata: { reference_trajectory: reference } },
    })
    expect(await run(trajectoryMatch({ mode: 'unordered' }), two)).toMatchObject({
      score: 1,
      passed: true,
      citations: [0, 1],
    })
    expect(await run(trajectoryMatch({ mode: 'exact' }), two)).toMatchObject({ score: 0, passed: false })
  })

  it('passes its argument matchers on', async () => {
    const view = viewOf(trace(ev.call('search', { q: 'x', limit: 5 })))
    const ref = [{ tool: 'search', args: { q: 'x' } }]
    expect((await run(trajectoryMatch({ reference: ref }), view)).passed).toBe(false)
    expect((await run(trajectoryMatch({ reference: ref, args: { search: 'subset' } }), view)).passed).toBe(
      true,
    )
  })

  it('a bad metadata.reference_trajectory makes the evaluator throw CONFIG_INVALID naming the task', async () => {
    const cases: [unknown, RegExp][] = [
      [
        [{ tool: 'search', arguments: { q: 'x' } }],
        /^task "task-test": metadata.reference_trajectory is invalid \(0: Unrecognized key: "arguments"\)/,
      ],
      [[{ args: {} }], /^task "task-test": metadata.reference_trajectory is invalid \(0.tool: /],
      ['search', /^task "task-test": metadata.reference_trajectory is invalid \(\(root\): /],
      [undefined, /^evaluator "trajectory-match": task "task-test" has no metadata.reference_trajectory/],
    ]
    for (const [value, message] of cases) {
      const metadata: TaskSpec['metadata'] =
        value === undefined ? {} : { reference_trajectory: value as JsonValue }
      const error = await rejection(() => trajectoryMatch().evaluate(viewOf(good, { task: { metadata } })))
      expect(isAgentEvalOpsError(error, 'CONFIG_INVALID'), JSON.stringify(value)).toBe(true)
      expect((error as Error).message).toMatch(message)
    }
  })

  it('with requireReference: false, a task without a reference scores 1 and one with a bad one still throws', async () => {
    const lenient = trajectoryMatch({ requireReference: false })
    expect(await run(lenient, viewOf(good))).toMatchObject({
      score: 1,
      passed: true,
      explanation: 'no reference trajectory for this task: nothing to compare',
    })
    const broken = viewOf(good, { task: { metadata: { reference_trajectory: 'search' } } })
    expect(isAgentEvalOpsError(await rejection(() => lenient.evaluate(broken)), 'CONFIG_INVALID')).toBe(true)
  })

  it('invalid options are CONFIG_INVALID from the factory', () => {
    const bad = [
      { mode: 'strict' },
      { args: { search: { tolerance: -0.1 } } },
      { args: { search: 'approximately' } },
      { args: { search: { fn: 'x => true' } } },
      { reference: [{ tool: '' }] },
    ] as unknown as Parameters<typeof trajectoryMatch>[0][]
    for (const options of bad) {
      let error: unknown
      try {
        trajectoryMatch(options)
      } catch (e) {
        error = e
      }
      expect(isAgentEvalOpsError(error, 'CONFIG_INVALID'), JSON.stringify(options)).toBe(true)
      expect((error as { hint?: string }).hint).toBeTruthy()
    }
  })
})
