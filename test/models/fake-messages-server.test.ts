import Anthropic from '@anthropic-ai/sdk'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FakeMessagesServer,
  messageReply,
  replies,
  textReply,
  toolUseBlock,
} from '../support/fake-messages-server.ts'

let server: FakeMessagesServer

beforeEach(async () => {
  server = await FakeMessagesServer.start()
})

afterEach(async () => {
  await server.close()
})

const post = (body: unknown, path = '/v1/messages') =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })

const valid: Anthropic.MessageCreateParamsNonStreaming = {
  model: 'claude-haiku-4-5',
  max_tokens: 8,
  messages: [{ role: 'user', content: 'hi' }],
}

describe('FakeMessagesServer', () => {
  it('serves scripted replies in order to the real SDK, echoing the model, and records each request', async () => {
    server.enqueue(
      textReply('one', { input_tokens: 5, output_tokens: 2, cache_creation_input_tokens: 1 }),
      messageReply({ content: [{ type: 'text', text: 'calling' }, toolUseBlock('read', { path: 'a' })] }),
    )
    const client = new Anthropic({ apiKey: 'sk-fake-key-123456', baseURL: server.url, maxRetries: 0 })
    const first = await client.messages.create({ ...valid, messages: [{ role: 'user', content: 'hi' }] })
    expect(first).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      stop_reason: 'end_turn',
      content: [{ type: 'text', text: 'one' }],
      usage: {
        input_tokens: 5,
        output_tokens: 2,
        cache_creation_input_tokens: 1,
        cache_read_input_tokens: null,
      },
    })
    const second = await client.messages.create({ ...valid, model: 'claude-sonnet-4', messages: [] }).then(
      () => 'served',
      () => 'refused',
    )
    // An empty messages list is not a valid request: refused with a 400, and the queue is left alone.
    expect(second).toBe('refused')
    expect(server.pending).toBe(1)
    const third = await client.messages.create({ ...valid, model: 'claude-sonnet-4' })
    expect(third.stop_reason).toBe('tool_use')
    expect(third.content[1]).toEqual({
      type: 'tool_use',
      id: 'toolu_read',
      name: 'read',
      input: { path: 'a' },
    })
    expect(server.requests.map((r) => r.status)).toEqual([200, 400, 200])
    expect(server.messageRequests).toHaveLength(2)
    expect(server.problems).toEqual([expect.stringContaining('invalid body: messages')])
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-fake-key-123456')
  })

  it('answers an unscripted request with a 500 that says so, and lists it as a problem', async () => {
    const res = await post(valid)
    expect(res.status).toBe(500)
    const body = (await res.json()) as { error: { type: string; message: string } }
    expect(body.error).toEqual({
      type: 'api_error',
      message: 'fake-messages-server: unexpected request: no scripted reply left',
    })
    expect(server.problems).toEqual([
      'request #0 (POST /v1/messages): unexpected request: no scripted reply left',
    ])
  })

  it('refuses other paths and bodies that are not JSON or lack required fields', async () => {
    server.enqueue(textReply('unused'))
    expect((await post(valid, '/v1/complete')).status).toBe(404)
    expect((await post('{not json')).status).toBe(400)
    expect((await post({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).status).toBe(400)
    expect(server.pending).toBe(1)
    expect(server.problems).toHaveLength(3)
  })

  it('sends raw bodies, headers and error replies as scripted', async () => {
    server.enqueue(replies.malformed('<html>'), replies.rateLimited(7), replies.overloaded())
    const malformed = await post(valid)
    expect(malformed.status).toBe(200)
    expect(await malformed.text()).toBe('<html>')
    const limited = await post(valid)
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('7')
    expect((await post(valid)).status).toBe(529)
  })

  it('requires the API key when given one', async () => {
    await server.close()
    server = await FakeMessagesServer.start({ apiKey: 'right-key-123' })
    server.enqueue(textReply('ok'))
    const wrong = new Anthropic({ apiKey: 'wrong-key-123', baseURL: server.url, maxRetries: 0 })
    await expect(wrong.messages.create(valid)).rejects.toMatchObject({
      status: 401,
    })
    const right = new Anthropic({ apiKey: 'right-key-123', baseURL: server.url, maxRetries: 0 })
    await expect(right.messages.create(valid)).resolves.toMatchObject({
      content: [{ text: 'ok' }],
    })
  })

  it('closes promptly while a slow reply is pending', async () => {
    server.enqueue(replies.slow(30_000))
    const pending = post(valid).catch(() => 'connection closed')
    // Let the request arrive before closing.
    for (let i = 0; i < 100 && server.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10))
    const started = performance.now()
    await server.close()
    expect(performance.now() - started).toBeLessThan(1_000)
    expect(await pending).toBe('connection closed')
  })
})
