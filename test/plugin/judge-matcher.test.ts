import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import '../../plugin/matchers.ts'
import { defineTask } from '../../src/core/index.ts'
import { FakeMessagesServer, replies, textReply } from '../support/fake-messages-server.ts'
import { ev, trace } from '../evaluators/trace-fixture.ts'

const task = defineTask({ id: 'capital', benchmark: 'b', prompt: 'What is the capital of France?' })
const events = trace(ev.model(), ev.answer('Paris'), ev.terminal('completed'))
const trial = { task, events }

let server: FakeMessagesServer
beforeEach(async () => {
  server = await FakeMessagesServer.start()
})
afterEach(async () => {
  await server.close()
})

function verdict(score: number, passed: boolean) {
  return textReply(JSON.stringify({ score, passed, reasoning: `scored ${score}`, citations: [1] }))
}

const judge = () => ({
  baseURL: server.url,
  apiKey: 'test-key',
  model: 'claude-haiku-4-5',
  retry: { baseDelayMs: 1 },
})

describe('toSatisfyJudge', () => {
  it('passes on the judge’s pass verdict, sending the rubric and the answer', async () => {
    server.enqueue(verdict(0.9, true))
    await expect(trial).toSatisfyJudge('Names Paris as the capital.', judge())
    const prompt = JSON.stringify(server.messageRequests[0]?.body)
    expect(prompt).toContain('Names Paris as the capital.')
    expect(prompt).toContain('Paris')
  })

  it('fails below the threshold, showing the score, the cited steps and the reasoning', async () => {
    server.enqueue(verdict(0.6, true))
    await expect(
      expect(trial).toSatisfyJudge('Names Paris.', { ...judge(), threshold: 0.8 }),
    ).rejects.toThrow(
      /^expected a judge score ≥ 0\.8; judge score 0\.60, pass \(cites steps 1\): .*scored 0\.6/,
    )
  })

  it('.not passes when the judge rejects the trial', async () => {
    server.enqueue(verdict(0.1, false))
    await expect(trial).not.toSatisfyJudge('Names Lyon.', judge())
  })

  it('rejects (never passes) when the judge cannot judge', async () => {
    server.enqueue(replies.serverError(), replies.serverError(), replies.serverError())
    await expect(expect(trial).toSatisfyJudge('Names Paris.', judge())).rejects.toThrow(/500/)
    await expect(expect(events).toSatisfyJudge('Names Paris.', judge())).rejects.toThrow(
      'toSatisfyJudge: expected a trial carrying its task',
    )
  })
})
