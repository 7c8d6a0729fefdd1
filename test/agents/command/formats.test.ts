import { describe, expect, it } from 'vitest'
import { isAgentEvalOpsError, type JsonValue } from '../../../src/core/index.ts'
import { genericFormat } from '../../../src/agents/command/formats/generic.ts'
import { streamJsonFormat } from '../../../src/agents/command/formats/stream-json.ts'
import type { FormatFactory } from '../../../src/agents/command/formats/types.ts'
import { RunNotes } from '../../../src/agents/command/notes.ts'
import { recordingContext } from './fixtures/helpers.ts'

function feed(factory: FormatFactory, lines: JsonValue[], limits = {}) {
  const ctx = recordingContext(limits)
  const notes = new RunNotes((m) => ctx.warn(m))
  const format = factory({ ctx, notes })
  let thrown: unknown
  try {
    for (const line of lines) format.line(line)
    format.end()
  } catch (e) {
    thrown = e
  }
  notes.flush()
  return { ...ctx, result: format.result(), thrown }
}

const SONNET = 'claude-sonnet-4-5'

describe('generic format', () => {
  it('maps each type to its event; cost from cost_usd, else the price table, else 0 with a warning', () => {
    const r = feed(genericFormat, [
      { type: 'plan', text: 'p' },
      {
        type: 'model_call',
        model: SONNET,
        input_tokens: 1000,
        output_tokens: 100,
        cache_read_input_tokens: 2000,
        stop_reason: 'tool_use',
        text: 't',
      },
      { type: 'model_call', model: 'mine', input_tokens: 1, output_tokens: 2, cost_usd: 0.25 },
      { type: 'model_call', model: 'mine', input_tokens: 1, output_tokens: 2 },
      { type: 'model_call', model: 'mine', input_tokens: 1, output_tokens: 2, text: null, cost_usd: null },
      { type: 'tool_call', tool: 'search', args: { q: 'x' }, id: 7 },
      { type: 'tool_call', tool: 'noargs' },
      { type: 'tool_result', id: 7, result: ['a'], is_error: false },
      { type: 'tool_result', tool: 'noargs', result: null, is_error: true },
      { type: 'observation', text: 'o' },
      { type: 'final_answer', answer: 'first' },
      { type: 'final_answer', answer: 'last' },
    ])
    expect(r.thrown).toBeUndefined()
    expect(r.emitted).toEqual([
      { kind: 'agent.plan', payload: { text: 'p' }, usage: undefined },
      {
        kind: 'agent.model_call',
        payload: {
          model: SONNET,
          inputTokens: 1000,
          outputTokens: 100,
          cacheReadInputTokens: 2000,
          stopReason: 'tool_use',
          text: 't',
        },
        // 1000 × $3 + 100 × $15 + 2000 × $0.30 per million
        usage: { tokens: 3100, costUsd: 0.0051 },
      },
      {
        kind: 'agent.model_call',
        payload: { model: 'mine', inputTokens: 1, outputTokens: 2 },
        usage: { tokens: 3, costUsd: 0.25 },
      },
      {
        kind: 'agent.model_call',
        payload: { model: 'mine', inputTokens: 1, outputTokens: 2 },
        usage: { tokens: 3, costUsd: 0 },
      },
      {
        kind: 'agent.model_call',
        payload: { model: 'mine', inputTokens: 1, outputTokens: 2 },
        usage: { tokens: 3, costUsd: 0 },
      },
      {
        kind: 'agent.tool_call',
        payload: { tool: 'search', args: { q: 'x' }, callId: '7' },
        usage: undefined,
      },
      { kind: 'agent.tool_call', payload: { tool: 'noargs', args: {} }, usage: undefined },
      {
        kind: 'agent.tool_result',
        payload: { tool: 'search', result: ['a'], isError: false, callId: '7' },
        usage: undefined,
      },
      {
        kind: 'agent.tool_result',
        payload: { tool: 'noargs', result: null, isError: true },
        usage: undefined,
      },
      { kind: 'agent.observation', payload: { text: 'o' }, usage: undefined },
      { kind: 'agent.final_answer', payload: { answer: 'first' }, usage: undefined },
      { kind: 'agent.final_answer', payload: { answer: 'last' }, usage: undefined },
    ])
    expect(r.result).toEqual({ finalAnswer: 'last' })
    expect(r.warnings).toEqual([
      expect.stringMatching(/^model "mine" is not in the price table of .*: its calls are counted at \$0/),
    ])
  })

  it('skips unknown and malformed lines, one counted warning per problem', () => {
    const r = feed(genericFormat, [
      { type: 'thought', text: 'a' },
      { type: 'thought', text: 'b' },
      { type: 'plan', text: 3 },
      { type: 'tool_call', tool: '' },
      { type: 'tool_result', id: 'never-called', result: 1 },
      { type: 'model_call', cost_usd: -1 },
      { type: 'final_answer', answer: 42 },
      [1, 2],
      'text',
      { no: 'type' },
    ])
    expect(r.emitted).toEqual([])
    expect(r.result.finalAnswer).toBeNull()
    expect(r.warnings).toEqual([
      'skipped 2 line(s) of unknown type "thought"',
      'skipped 1 "plan" line(s): "text" must be a string',
      'skipped 1 "tool_call" line(s): "tool" must be a non-empty string',
      'skipped 1 "tool_result" line(s): no "tool", and no "id" of an earlier tool_call to take it from',
      'skipped 1 "model_call" line(s): "cost_usd" must be a number ≥ 0 when given',
      'skipped 1 "final_answer" line(s): "answer" must be a string',
      'skipped 3 JSON line(s) that are not an object with a "type"',
    ])
  })

  it('lets a limit thrown by emit propagate', () => {
    const r = feed(
      genericFormat,
      [
        { type: 'model_call', model: 'm', input_tokens: 60, cost_usd: 0 },
        { type: 'model_call', model: 'm', input_tokens: 60, cost_usd: 0 },
        { type: 'plan', text: 'never' },
      ],
      { maxTokens: 100 },
    )
    expect(isAgentEvalOpsError(r.thrown, 'LIMIT_REACHED')).toBe(true)
    expect(r.emitted.map((e) => e.kind)).toEqual(['agent.model_call', 'agent.model_call'])
  })
})

/** An assistant line of stream-json, as Claude Code writes one per content block. */
function assistant(
  id: string,
  content: JsonValue[],
  usage: JsonValue,
  extra: Record<string, JsonValue> = {},
) {
  return {
    type: 'assistant',
    message: { id, model: SONNET, content, stop_reason: null, usage },
    parent_tool_use_id: null,
    ...extra,
  }
}

describe('stream-json format', () => {
  it('merges the lines of one message into one model call, and counts usage that grows later as a cost.tick', () => {
    const usage = (output: number) => ({ input_tokens: 10, output_tokens: output })
    const r = feed(streamJsonFormat, [
      assistant('m1', [{ type: 'text', text: 'a' }], usage(1)),
      assistant('m1', [{ type: 'text', text: 'b' }], usage(1)),
      assistant('m1', [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }], usage(20)),
      // A second tool_use of the same message, after its model call was traced, with a grown output count.
      assistant('m1', [{ type: 'tool_use', id: 't2', name: 'Read', input: { file_path: 'x' } }], usage(25)),
      assistant('m1', [{ type: 'tool_use', id: 't3', name: 'Read', input: {} }], usage(25)),
    ])
    expect(r.emitted.map((e) => [e.kind, e.payload, e.usage])).toEqual([
      [
        'agent.model_call',
        { model: SONNET, inputTokens: 10, outputTokens: 20, text: 'a\nb', messageId: 'm1' },
        { tokens: 30, costUsd: (10 * 3 + 20 * 15) / 1e6 },
      ],
      ['agent.tool_call', { tool: 'Bash', args: { command: 'ls' }, callId: 't1' }, undefined],
      [
        'cost.tick',
        { note: 'later usage of message m1', messageId: 'm1' },
        { tokens: 5, costUsd: (5 * 15) / 1e6 },
      ],
      ['agent.tool_call', { tool: 'Read', args: { file_path: 'x' }, callId: 't2' }, undefined],
      ['agent.tool_call', { tool: 'Read', args: {}, callId: 't3' }, undefined],
    ])
    expect(r.warnings).toEqual([])
  })

  it('traces thinking as a plan, subagent lines with their parent, and results by the tool they answer', () => {
    const r = feed(streamJsonFormat, [
      assistant('m1', [{ type: 'thinking', thinking: 'hmm', signature: 's' }], {
        input_tokens: 1,
        output_tokens: 1,
      }),
      assistant('m1', [{ type: 'tool_use', id: 't1', name: 'Task', input: { prompt: 'go' } }], {
        input_tokens: 1,
        output_tokens: 2,
      }),
      assistant(
        's1',
        [{ type: 'tool_use', id: 't2', name: 'Grep', input: { pattern: 'x' } }],
        {},
        {
          parent_tool_use_id: 't1',
        },
      ),
      {
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't2',
              content: [
                { type: 'text', text: 'found' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'QUJD' } },
              ],
            },
          ],
        },
        parent_tool_use_id: 't1',
      },
      {
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nope', content: 'x' }] },
      },
      { type: 'user', message: { role: 'user', content: 'plain text is not traced' } },
    ])
    expect(r.emitted.map((e) => [e.kind, e.payload])).toEqual([
      ['agent.model_call', { model: SONNET, inputTokens: 1, outputTokens: 2, messageId: 'm1' }],
      ['agent.plan', { text: 'hmm', source: 'thinking' }],
      ['agent.tool_call', { tool: 'Task', args: { prompt: 'go' }, callId: 't1' }],
      [
        'agent.model_call',
        { model: SONNET, inputTokens: 0, outputTokens: 0, messageId: 's1', parentToolUseId: 't1' },
      ],
      ['agent.tool_call', { tool: 'Grep', args: { pattern: 'x' }, callId: 't2', parentToolUseId: 't1' }],
      [
        'agent.tool_result',
        {
          tool: 'Grep',
          result: [
            { type: 'text', text: 'found' },
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: '[4 base64 characters omitted]' },
            },
          ],
          callId: 't2',
          parentToolUseId: 't1',
        },
      ],
      ['agent.tool_result', { tool: 'unknown', result: 'x', callId: 'nope' }],
    ])
    expect(r.warnings).toEqual(['1 tool result(s) answer no tool_use seen before: tool "unknown"'])
  })

  it("adds the agent's total_cost_usd beyond the priced calls, and prices an unknown model at 0 with a warning", () => {
    const r = feed(streamJsonFormat, [
      assistant('m1', [{ type: 'text', text: 'hi' }], { input_tokens: 5, output_tokens: 5 }),
      {
        type: 'assistant',
        message: {
          id: 'm2',
          model: 'claude-future-9',
          content: [],
          usage: { input_tokens: 5, output_tokens: 5 },
        },
      },
      { type: 'result', subtype: 'success', is_error: false, result: 'done', total_cost_usd: 0.01 },
    ])
    const priced = (5 * 3 + 5 * 15) / 1e6
    expect(r.emitted.map((e) => [e.kind, e.usage])).toEqual([
      ['agent.model_call', { tokens: 10, costUsd: priced }],
      ['agent.model_call', { tokens: 10, costUsd: 0 }],
      ['cost.tick', { costUsd: Math.round((0.01 - priced) * 1e9) / 1e9 }],
      ['agent.final_answer', undefined],
    ])
    expect(r.emitted[2]?.payload).toEqual({
      note: "the agent's total_cost_usd beyond the priced model calls",
      reportedCostUsd: 0.01,
    })
    expect(r.result).toEqual({ finalAnswer: 'done', success: true })
    expect(r.warnings).toEqual([expect.stringContaining('model "claude-future-9" is not in the price table')])
  })

  it('reports an error result as the run error, without a final answer', () => {
    const r = feed(streamJsonFormat, [
      {
        type: 'result',
        subtype: 'error_during_execution',
        is_error: true,
        errors: ['tool crashed'],
        total_cost_usd: 0,
      },
    ])
    expect(r.emitted).toEqual([])
    expect(r.result).toEqual({
      finalAnswer: null,
      success: false,
      error: 'the agent reported error_during_execution: tool crashed',
    })
    // An API error Claude Code reports as a "success" with is_error set is a failure too.
    const api = feed(streamJsonFormat, [
      { type: 'result', subtype: 'success', is_error: true, result: 'API Error: 529 overloaded' },
    ])
    expect(api.result.error).toBe('the agent reported success: API Error: 529 overloaded')
  })

  it('traces a synthetic message as a failed attempt, not a turn; ignores stream_event; warns on unknown types', () => {
    const r = feed(streamJsonFormat, [
      {
        type: 'assistant',
        message: {
          id: 'x',
          model: '<synthetic>',
          content: [{ type: 'text', text: 'API Error: 500' }],
          usage: {},
        },
      },
      { type: 'stream_event', event: { type: 'content_block_delta' } },
      { type: 'system', subtype: 'compact_boundary' },
      { type: 'telemetry' },
      { type: 'telemetry' },
    ])
    expect(r.emitted.map((e) => [e.kind, e.payload, e.usage])).toEqual([
      [
        'agent.model_call',
        { model: '<synthetic>', status: 'error', error: 'API Error: 500', messageId: 'x' },
        { tokens: 0, costUsd: 0 },
      ],
    ])
    expect(r.warnings).toEqual(['skipped 2 stream-json line(s): unknown type "telemetry"'])
  })

  it('flushes a buffered message before a limit-crossing line, and stops at the limit', () => {
    const line = (id: string) => assistant(id, [{ type: 'text', text: id }], { input_tokens: 60 })
    const r = feed(streamJsonFormat, [line('a'), line('b'), line('c'), line('d')], { maxTokens: 100 })
    expect(isAgentEvalOpsError(r.thrown, 'LIMIT_REACHED')).toBe(true)
    expect(r.emitted.map((e) => (e.payload as { messageId: string }).messageId)).toEqual(['a', 'b'])
  })
})
