// What ctx.fetch reads from a model reply to record its call: usage (cached prompt tokens apart), text and stop
// reason, from JSON and streamed bodies of the three API shapes it knows.
import { describe, expect, it } from 'vitest'
import { modelRequestBody, replyFacts } from '../../../src/agents/callable/model-fetch.ts'

const json = (body: unknown) => ({ status: 200, contentType: 'application/json', body: JSON.stringify(body) })
const sse = (...events: unknown[]) => ({
  status: 200,
  contentType: 'text/event-stream; charset=utf-8',
  body: events.map((e) => `event: x\ndata: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n',
})

describe('replyFacts', () => {
  it('reads a Responses API reply: input tokens without the cached ones', () => {
    const reply = json({
      object: 'response',
      usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 40 }, output_tokens: 7 },
    })
    expect(replyFacts(reply)).toEqual({ inputTokens: 60, cacheReadTokens: 40, outputTokens: 7 })
  })

  it('reads a streamed Responses API reply from its response.completed event', () => {
    const reply = sse(
      { type: 'response.created', response: { usage: null } },
      {
        type: 'response.completed',
        response: {
          usage: { input_tokens: 12, output_tokens: 3, input_tokens_details: { cached_tokens: 0 } },
        },
      },
    )
    expect(replyFacts(reply)).toEqual({ inputTokens: 12, outputTokens: 3 })
  })

  it('reads a streamed Anthropic Messages reply: input from message_start, output and stop from message_delta', () => {
    const reply = sse(
      {
        type: 'message_start',
        message: { usage: { input_tokens: 25, output_tokens: 1, cache_read_input_tokens: 5 } },
      },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: 'hi' } },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } },
    )
    expect(replyFacts(reply)).toEqual({
      inputTokens: 25,
      cacheReadTokens: 5,
      outputTokens: 9,
      stopReason: 'end_turn',
    })
  })

  it('yields nothing from a reply in no shape it knows', () => {
    expect(replyFacts({ status: 200, contentType: 'text/plain', body: 'hello' })).toEqual({})
  })
})

describe('modelRequestBody', () => {
  it('is the JSON body when it names a model, and undefined for anything else', async () => {
    const url = 'http://127.0.0.1:1/v1/chat/completions'
    expect(await modelRequestBody(url, { method: 'POST', body: '{"model":"m","messages":[]}' })).toEqual({
      model: 'm',
      messages: [],
    })
    expect(
      await modelRequestBody(new Request(url, { method: 'POST', body: '{"model":"r"}' }), undefined),
    ).toEqual({
      model: 'r',
    })
    expect(await modelRequestBody(url, { method: 'POST', body: '{"data":[]}' })).toBeUndefined()
    expect(await modelRequestBody(url, { method: 'POST', body: 'not json' })).toBeUndefined()
    expect(await modelRequestBody(url, undefined)).toBeUndefined()
  })
})
