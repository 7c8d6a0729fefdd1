import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { FullTrace } from '../../src/core/index.ts'
import { createOtlpFileSource, otlpIdsOf, type SourcedTrace } from '../../src/monitor/index.ts'
import { buildRunSpanLines } from '../../src/observability/index.ts'
import { makeMetadata, makeSummary } from '../bundles/fixtures.ts'
import { T0, timelineEvents, timelineTrial } from '../observability/helpers.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-otlp-source-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const ALL_TIME = { start: new Date('2000-01-01T00:00:00Z'), end: new Date('2100-01-01T00:00:00Z') }

async function readAll(path: string, window = ALL_TIME, pageSize?: number) {
  const source = createOtlpFileSource({ path, ...(pageSize === undefined ? {} : { pageSize }) })
  const pages: (readonly SourcedTrace[])[] = []
  for await (const page of source.pages(window, new AbortController().signal)) pages.push(page)
  const items = pages.flat()
  const traces = items.flatMap((i) => (i.ok ? [i.trace] : []))
  const skipped = items.flatMap((i) => (i.ok ? [] : [i]))
  return { pages, traces, skipped }
}

const kinds = (trace: FullTrace) => trace.spans.map((s) => s.ampAttributes['kind'])
const spansOf = (trace: FullTrace, kind: string) =>
  trace.spans.filter((s) => s.ampAttributes['kind'] === kind)

/** Nanoseconds of an offset (ms) from the fixture clock, as OTLP JSON writes them. */
const nanos = (offsetMs: number) => String(BigInt(T0 + offsetMs) * 1_000_000n)
const str = (key: string, value: string) => ({ key, value: { stringValue: value } })
const int = (key: string, value: number) => ({ key, value: { intValue: String(value) } })

function request(spans: object[], service = 'shop-agent'): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [str('service.name', service)] },
        scopeSpans: [{ scope: { name: 'instrumentation' }, spans }],
      },
    ],
  })
}

function span(
  traceId: string,
  spanId: string,
  parent: string | undefined,
  name: string,
  attributes: object[],
  extra: object = {},
) {
  return {
    traceId,
    spanId,
    ...(parent ? { parentSpanId: parent } : {}),
    name,
    kind: 1,
    startTimeUnixNano: nanos(0),
    endTimeUnixNano: nanos(100),
    attributes,
    status: {},
    ...extra,
  }
}

describe('createOtlpFileSource: our own spans.jsonl', () => {
  it('makes one FullTrace per trial, the agent and its model and tool calls in it, the harness left out', async () => {
    const trial = timelineTrial()
    const second = { ...timelineTrial(), taskId: 'task-1' }
    const lines = buildRunSpanLines({
      metadata: makeMetadata([trial, second]),
      trials: [trial, second],
      events: [...timelineEvents(trial), ...timelineEvents(second)],
      summary: makeSummary([trial, second]),
      env: {},
      captureContent: true,
    })
    const file = join(dir, 'spans.jsonl')
    await writeFile(file, lines.map((l) => `${l}\n`).join(''))

    const { traces, skipped } = await readAll(file)
    expect(skipped).toEqual([])
    expect(traces.map((t) => t.taskId)).toEqual(['task-0', 'task-1'])
    const [trace] = traces as [FullTrace]
    expect(trace.trialId).toBe(String(trial.trial))
    // One OTLP trace holds the run: each trial's id names the OTLP trace and its eval.task span.
    const ids = otlpIdsOf(trace.traceId)
    expect(ids?.spanId).toBe(trace.rootSpanId)
    expect(trace.spans.every((s) => s.traceId === ids?.traceId)).toBe(true)
    expect(new Set(traces.map((t) => t.traceId)).size).toBe(2)

    expect(trace.rootSpanName).toBe('eval.task')
    expect(trace.spans.find((s) => s.spanId === trace.rootSpanId)?.parentSpanId).toBeNull()
    expect(kinds(trace).sort()).toEqual(['agent', 'chain', 'llm', 'llm', 'llm', 'tool'])
    expect(
      trace.spans.some((s) => s.name.startsWith('eval.evaluator') || s.name.startsWith('eval.policy')),
    ).toBe(false)

    const [tool] = spansOf(trace, 'tool')
    expect(tool?.ampAttributes).toMatchObject({ data: { name: 'calc', toolCallId: 'c1' }, output: '4' })
    expect(JSON.parse(tool?.ampAttributes['input'] as string)).toMatchObject({ expr: '2+2' })
    const llms = spansOf(trace, 'llm')
    expect(llms.map((s) => (s.ampAttributes['status'] as { error: boolean }).error)).toEqual([
      false,
      true,
      false,
    ])
    expect(llms[0]?.ampAttributes).toMatchObject({
      data: { model: 'claude-x', vendor: 'anthropic', tokenUsage: { inputTokens: 50, outputTokens: 10 } },
      output: [{ role: 'assistant', content: 'let me compute' }],
    })
    expect(trace.tokenUsage).toEqual({ inputTokens: 120, outputTokens: 15, totalTokens: 135 })
    expect(trace.status?.errorCount).toBe(1)
    const [agent] = spansOf(trace, 'agent')
    expect(agent?.ampAttributes).toMatchObject({ output: '4', data: { name: 'claude-agent' } })
    expect(trace.output).toBe('4')
    // Spans come ordered by start; the model call's reported latency places it before the tool call.
    const order = trace.spans.map((s) => s.name)
    expect(order.indexOf('execute_tool calc')).toBeGreaterThan(order.indexOf('chat claude-x'))
  })
})

describe('createOtlpFileSource: the collector file exporter', () => {
  const A = 'a'.repeat(32)
  const B = 'b'.repeat(32)
  const C = 'c'.repeat(32)

  it('joins a trace split over lines, maps GenAI and OpenInference attributes, skips what is malformed', async () => {
    const file = join(dir, 'traces.json')
    const lines = [
      // Trace A: the tool call is exported (it ended) before the agent span and the chat.
      request([
        span(A, '0000000000000002', '0000000000000001', 'execute_tool search', [
          str('gen_ai.operation.name', 'execute_tool'),
          str('gen_ai.tool.name', 'search'),
          str('gen_ai.tool.call.arguments', '{"q":"shoes"}'),
          str('gen_ai.tool.call.result', 'no results'),
          str('error.type', 'not_found'),
        ]),
      ]),
      'this line is not JSON',
      request([
        span(A, '0000000000000003', '0000000000000001', 'chat gpt-4o', [
          str('gen_ai.operation.name', 'chat'),
          str('gen_ai.provider.name', 'openai'),
          str('gen_ai.request.model', 'gpt-4o'),
          int('gen_ai.usage.input_tokens', 30),
          int('gen_ai.usage.output_tokens', 7),
          str(
            'gen_ai.input.messages',
            JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'find shoes' }] }]),
          ),
          str(
            'gen_ai.output.messages',
            JSON.stringify([
              {
                role: 'assistant',
                parts: [{ type: 'tool_call', id: 'call-1', name: 'search', arguments: { q: 'shoes' } }],
                finish_reason: 'tool_call',
              },
            ]),
          ),
        ]),
        span(
          A,
          '0000000000000001',
          undefined,
          'invoke_agent shopper',
          [
            str('gen_ai.operation.name', 'invoke_agent'),
            str('gen_ai.agent.name', 'shopper'),
            str(
              'gen_ai.output.messages',
              JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'none found' }] }]),
            ),
          ],
          { status: { code: 2, message: 'gave up' } },
        ),
        // Trace B: OpenInference.
        span(B, '00000000000000b1', undefined, 'agent', [
          str('openinference.span.kind', 'AGENT'),
          str('input.value', 'hello'),
          str('output.value', 'hi there'),
        ]),
        span(B, '00000000000000b2', '00000000000000b1', 'ChatOpenAI', [
          str('openinference.span.kind', 'LLM'),
          str('llm.model_name', 'gpt-4o-mini'),
          int('llm.token_count.prompt', 11),
          int('llm.token_count.completion', 3),
          str('llm.input_messages.0.message.role', 'user'),
          str('llm.input_messages.0.message.content', 'hello'),
          str('llm.output_messages.0.message.role', 'assistant'),
          str('llm.output_messages.0.message.tool_calls.0.tool_call.function.name', 'greet'),
          str('llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments', '{"to":"you"}'),
        ]),
        // Trace C: a span id that is not hex.
        span(C, 'not-a-span-id', undefined, 'broken', []),
      ]),
    ]
    await writeFile(file, lines.join('\n') + '\n')

    const { traces, skipped, pages } = await readAll(file, ALL_TIME, 1)
    expect(pages.every((p) => p.length === 1)).toBe(true)
    expect(skipped).toHaveLength(2)
    expect(skipped.find((s) => s.traceId === null)?.reason).toMatch(/traces\.json:2: not JSON/)
    expect(skipped.find((s) => s.traceId === C)?.reason).toMatch(/traces\.json:3: malformed span at spanId/)

    const a = traces.find((t) => t.traceId === A)!
    expect(a.rootSpanId).toBe('0000000000000001')
    expect(a.spanCount).toBe(3)
    expect(a.output).toBe('none found')
    expect(a.status?.errorCount).toBe(1)
    const [tool] = spansOf(a, 'tool')
    expect(tool?.ampAttributes).toMatchObject({
      input: '{"q":"shoes"}',
      output: 'no results',
      status: { error: true, errorType: 'not_found' },
      data: { name: 'search' },
    })
    const [chat] = spansOf(a, 'llm')
    expect(chat?.service).toBe('shop-agent')
    expect(chat?.kind).toBe('INTERNAL')
    expect(chat?.ampAttributes).toMatchObject({
      input: [{ role: 'user', content: 'find shoes' }],
      output: [
        { role: 'assistant', toolCalls: [{ id: 'call-1', name: 'search', arguments: '{"q":"shoes"}' }] },
      ],
      data: {
        model: 'gpt-4o',
        vendor: 'openai',
        tokenUsage: { inputTokens: 30, outputTokens: 7, totalTokens: 37 },
      },
    })
    const [agent] = spansOf(a, 'agent')
    expect(agent?.status).toBe('ERROR')
    expect(agent?.ampAttributes).toMatchObject({ status: { error: true }, error: { message: 'gave up' } })

    const b = traces.find((t) => t.traceId === B)!
    expect(b.input).toBe('hello')
    expect(b.output).toBe('hi there')
    expect(spansOf(b, 'llm')[0]?.ampAttributes).toMatchObject({
      data: { model: 'gpt-4o-mini', tokenUsage: { inputTokens: 11, outputTokens: 3 } },
      output: [{ role: 'assistant', toolCalls: [{ name: 'greet', arguments: '{"to":"you"}' }] }],
    })
  })

  it('reads a folder of files in name order and keeps only the traces that started in the window', async () => {
    const before = span('d'.repeat(32), '00000000000000d1', undefined, 'early', [], {
      startTimeUnixNano: nanos(-60_000),
      endTimeUnixNano: nanos(-59_000),
    })
    await writeFile(
      join(dir, '2-later.json'),
      request([span(B, '00000000000000b1', undefined, 'second', [])]) + '\n',
    )
    await writeFile(
      join(dir, '1-first.jsonl'),
      request([span(A, '00000000000000a1', undefined, 'first', []), before]),
    )
    await writeFile(join(dir, 'notes.txt'), 'not read')

    const window = { start: new Date(T0 - 1000), end: new Date(T0 + 1000) }
    const { traces, skipped } = await readAll(dir, window)
    expect(skipped).toEqual([])
    expect(traces.map((t) => t.rootSpanName)).toEqual(['first', 'second'])
  })

  it('stops between pages once the signal aborts', async () => {
    const file = join(dir, 'many.json')
    const spans = Array.from({ length: 30 }, (_, i) =>
      span(i.toString(16).padStart(32, '0'), '00000000000000e1', undefined, `t${i}`, []),
    )
    await writeFile(file, request(spans))
    const controller = new AbortController()
    const seen: SourcedTrace[] = []
    for await (const page of createOtlpFileSource({ path: file, pageSize: 5 }).pages(
      ALL_TIME,
      controller.signal,
    )) {
      seen.push(...page)
      controller.abort()
    }
    expect(seen).toHaveLength(5)
  })

  it('says which path is missing', async () => {
    const source = createOtlpFileSource({ path: join(dir, 'nope.json') })
    const read = async () => {
      for await (const page of source.pages(ALL_TIME, new AbortController().signal)) void page
    }
    const error = await read().then(
      () => null,
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ code: 'USAGE' })
    expect((error as Error).message).toMatch(/nope\.json/)
  })
})

describe('createOtlpFileSource: traces that never complete', () => {
  const parent = '00000000000000f0'
  const orphan = (trace: string, spanId: string) =>
    span(trace, spanId, parent, `orphan ${spanId}`, [str('gen_ai.operation.name', 'chat')])

  it('hands on the oldest open traces once too many spans wait, and drops their spans that come later', async () => {
    const first = '1'.repeat(32)
    const second = '2'.repeat(32)
    const file = join(dir, 'open.json')
    // Neither trace's root (span f0) is ever exported; `first` reaches the bound first and is handed on early.
    await writeFile(
      file,
      [
        request([orphan(first, '00000000000000f1'), orphan(first, '00000000000000f2')]),
        request([orphan(second, '00000000000000f3')]),
        request([orphan(first, '00000000000000f4')]),
      ].join('\n'),
    )
    const source = createOtlpFileSource({ path: file, maxOpenSpans: 2 })
    const items: SourcedTrace[] = []
    for await (const page of source.pages(ALL_TIME, new AbortController().signal)) items.push(...page)
    const traces = items.flatMap((i) => (i.ok ? [i.trace] : []))
    expect(items.every((i) => i.ok)).toBe(true)
    expect(traces.map((t) => t.traceId)).toEqual([first, second])
    expect(traces[0]?.spans.map((s) => s.spanId)).toEqual(['00000000000000f1', '00000000000000f2'])
    expect(traces[0]?.rootSpanId).toBe('00000000000000f1')
    expect(traces[0]?.spans[0]?.parentSpanId).toBeNull()
  })
})
