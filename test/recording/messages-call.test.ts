import Anthropic from '@anthropic-ai/sdk'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../src/core/index.ts'
import { callMessages, type AttemptInfo } from '../../src/models/index.ts'
import { RecordingSession } from '../../src/recording/index.ts'
import { rejection } from '../evaluators/evaluate.ts'
import { FakeMessagesServer, replies, textReply } from '../support/fake-messages-server.ts'

let dir: string
let server: FakeMessagesServer
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-recorded-calls-'))
  server = await FakeMessagesServer.start()
})
afterEach(async () => {
  await server.close()
  await rm(dir, { recursive: true, force: true })
})

const request = {
  model: 'claude-haiku-4-5',
  max_tokens: 50,
  messages: [{ role: 'user' as const, content: 'hi' }],
}

function run(client: Anthropic, session: RecordingSession, taskId = 't') {
  const attempts: AttemptInfo[] = []
  const call = callMessages(client, request, {
    gate: session.gateFor({ taskId, trial: 0 }),
    onAttempt: (info) => attempts.push(info),
    baseDelayMs: 1,
  })
  return { call, attempts }
}

describe('callMessages through a recording gate', () => {
  it('records a call with its retry, then replays both with the server gone', async () => {
    server.enqueue(replies.rateLimited(0), textReply('hello', { input_tokens: 12, output_tokens: 3 }))
    const live = new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 })
    const recorded = run(live, new RecordingSession({ dir, mode: 'auto', ci: false }))
    const response = await recorded.call
    expect(recorded.attempts.map((a) => a.status)).toEqual(['error', 'ok'])
    await server.close()

    const dead = new Anthropic({ apiKey: 'test-key', baseURL: 'http://127.0.0.1:9', maxRetries: 0 })
    const replayed = run(dead, new RecordingSession({ dir, mode: 'replay', ci: false }))
    expect(await replayed.call).toEqual(response)
    // The same attempts, latency and all, reach the caller: a replayed trace shows the retry too.
    expect(replayed.attempts).toEqual(recorded.attempts)
    expect(server.messageRequests).toHaveLength(2)
  })

  it('replays a call that failed for good as the same INFRA_FAILURE, without a request', async () => {
    server.enqueue(replies.serverError(), replies.serverError(), replies.serverError())
    const live = new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 })
    const first = run(live, new RecordingSession({ dir, mode: 'auto', ci: false }))
    const original = await rejection(() => first.call)
    expect(isAgentEvalOpsError(original, 'INFRA_FAILURE')).toBe(true)

    const again = run(live, new RecordingSession({ dir, mode: 'replay', ci: false }))
    const replayed = await rejection(() => again.call)
    expect(isAgentEvalOpsError(replayed, 'INFRA_FAILURE')).toBe(true)
    expect((replayed as Error).message).toBe((original as Error).message)
    expect(again.attempts).toEqual(first.attempts)
    expect(server.messageRequests).toHaveLength(3) // the default of 3 attempts, all in the recording run
  })
})
