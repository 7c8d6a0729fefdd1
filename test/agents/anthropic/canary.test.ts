// The API key must never reach a record, an event or a warning, even when a server or a tool echoes it back.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { anthropicRunner } from '../../../src/agents/anthropic/index.ts'
import {
  errorReply,
  FakeMessagesServer,
  messageReply,
  textReply,
  toolUseBlock,
} from '../../support/fake-messages-server.ts'
import { bodyOf, trial, weatherTask } from './helpers.ts'

const CANARY = 'sk-ant-CANARY-4b9d2e7f1a3c5e8b0d6f'

let server: FakeMessagesServer

beforeEach(async () => {
  server = await FakeMessagesServer.start({ apiKey: CANARY })
})

afterEach(async () => {
  await server.close()
  vi.unstubAllEnvs()
})

function everything(run: Awaited<ReturnType<typeof trial>>): string {
  return JSON.stringify({
    record: run.record,
    events: run.events,
    warnings: run.warnings,
    result: run.result,
  })
}

describe('anthropicRunner never writes the API key', () => {
  it('redacts it from a 429 that echoes it, from tool results and from what the model says', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', CANARY)
    server.enqueue(
      errorReply(429, 'rate_limit_error', `slow down, ${CANARY}`, { 'retry-after': '0' }),
      messageReply({
        content: [
          { type: 'text', text: `Checking with key ${CANARY}` },
          toolUseBlock('get_weather', { city: 'Paris', token: CANARY }, 'toolu_1'),
        ],
      }),
      textReply(`The key is ${CANARY}.`),
    )
    // A tool that reads the environment, as a shell tool might.
    const tools = {
      get_weather: () => ({ env: { ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY ?? '' } }),
      convert: () => 0,
    }
    const run = await trial(
      anthropicRunner({ model: 'claude-haiku-4-5', baseURL: server.url, tools }),
      weatherTask,
    )
    expect(run.record.outcome).toBe('passed')
    // The key was really in use, and really echoed: the test would see a leak.
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${CANARY}`)
    const text = everything(run)
    expect(text).not.toContain(CANARY)
    expect(text).toContain('[redacted]')
    expect(run.result?.finalAnswer).toBe('The key is [redacted].')
    // What the model is sent back is the redacted result too, as the trace shows it.
    expect(bodyOf(server.requests[2]).messages.at(-1)?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"env":{"ANTHROPIC_API_KEY":"[redacted]"}}' },
    ])
  })

  it('redacts it from a 401 that echoes it, and from the infra failure that follows', async () => {
    server.enqueue(errorReply(401, 'authentication_error', `invalid x-api-key: ${CANARY}`))
    const run = await trial(
      anthropicRunner({ model: 'claude-haiku-4-5', apiKey: CANARY, baseURL: server.url }),
      weatherTask,
    )
    expect(run.record.outcome).toBe('infra_failure')
    expect(run.record.result?.error).toContain('[redacted]')
    expect(everything(run)).not.toContain(CANARY)
  })

  it('redacts it from a retried 5xx that gives up', async () => {
    server.enqueue(
      errorReply(500, 'api_error', `upstream said ${CANARY}`),
      errorReply(500, 'api_error', `upstream said ${CANARY}`),
    )
    const run = await trial(
      anthropicRunner({
        model: 'claude-haiku-4-5',
        apiKey: CANARY,
        baseURL: server.url,
        maxAttempts: 2,
        retry: { baseDelayMs: 1 },
      }),
      weatherTask,
    )
    expect(run.record.outcome).toBe('infra_failure')
    expect(everything(run)).not.toContain(CANARY)
  })
})
