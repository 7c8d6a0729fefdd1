import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TrialRecord } from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { llmJudge, type LlmJudgeOptions } from '../../../src/evaluators/llm-judge/index.ts'
import { FakeMessagesServer, replies, textReply } from '../../support/fake-messages-server.ts'
import { baseOptions } from '../../engine/helpers.ts'

const CANARY = 'sk-ant-CANARY-engine-51d2e8a0c4b6'

let server: FakeMessagesServer

beforeEach(async () => {
  server = await FakeMessagesServer.start()
})

afterEach(async () => {
  await server.close()
})

function judge(overrides: Partial<LlmJudgeOptions> = {}) {
  return llmJudge({
    id: 'judge',
    rubric: 'The answer must be 2.',
    model: 'claude-haiku-4-5',
    apiKey: CANARY,
    baseURL: server.url,
    retry: { baseDelayMs: 1 },
    ...overrides,
  })
}

// The helpers' answering runner emits plan (step 0), model call (1), final answer (2); the terminal is step 3.
const passing = JSON.stringify({ score: 1, passed: true, reasoning: 'Says 2.', citations: [2] })

describe('llmJudge inside runTrial', () => {
  it('a passing verdict passes the trial; its model calls land in the trace after the agent’s events', async () => {
    server.enqueue(textReply('oops'), textReply(passing, { input_tokens: 2000, output_tokens: 100 }))
    const { record, events } = await runTrial(baseOptions({ evaluators: [judge()] }))
    expect(record.outcome).toBe('passed')
    const [score] = record.scores
    expect(score).toMatchObject({
      evaluatorId: 'judge',
      kind: 'llm_judge',
      passed: true,
      error: null,
      citations: [2],
    })
    // claude-haiku-4-5 at $1 in / $5 out per million: the malformed reply (the fake's default 10 in, 10 out)
    // is billed too, then the ok one (2000 in, 100 out).
    expect(score?.costUsd).toBeCloseTo((10 * 1 + 10 * 5 + 2000 * 1 + 100 * 5) / 1e6, 12)
    const calls = events.filter((e) => e.kind === 'evaluator.model_call')
    expect(calls.map((e) => [e.step, e.payload.status, e.payload.attempt])).toEqual([
      [4, 'malformed', 1],
      [5, 'ok', 2],
    ])
    expect(calls[1]?.costDeltaUsd).toBeCloseTo(0.0025, 12)
    expect(calls[1]?.tokensDelta).toBe(2100)
    // The agent's own usage is not charged for the judge.
    expect(record.usage).toMatchObject({ tokens: 10, costUsd: 0.001 })
    expect(JSON.stringify({ record, events })).not.toContain(CANARY)
  })

  it('a judge that keeps getting 500s records an evaluator error and an infra failure, not a verdict', async () => {
    server.enqueue(replies.serverError(), replies.serverError(), replies.serverError())
    const { record, events } = await runTrial(baseOptions({ evaluators: [judge()] }))
    expect(record.outcome).toBe('infra_failure')
    expect(record.passed).toBe(false)
    const [score] = record.scores
    expect(score).toMatchObject({ evaluatorId: 'judge', kind: 'llm_judge', score: 0, passed: false })
    expect(score?.error).toContain('failed after 3 attempt(s): HTTP 500')
    expect(record.warnings.some((w) => w.startsWith('judge: evaluator threw'))).toBe(true)
    const calls = events.filter((e) => e.kind === 'evaluator.model_call')
    expect(calls.map((e) => e.payload.status)).toEqual(['error', 'error', 'error'])
    expect(events.at(-1)).toMatchObject({
      kind: 'evaluator.score',
      payload: { evaluatorId: 'judge', passed: false },
    })
    expect(TrialRecord.parse(record)).toEqual(record)
    expect(JSON.stringify({ record, events })).not.toContain(CANARY)
  })

  it('a judge without an API key is an evaluator error too', async () => {
    const noKey = llmJudge({ id: 'judge', rubric: 'r', apiKey: '', baseURL: server.url })
    const { record } = await runTrial(baseOptions({ evaluators: [noKey] }))
    expect(record.outcome).toBe('infra_failure')
    expect(record.scores[0]?.error).toContain('ANTHROPIC_API_KEY')
    expect(server.requests).toHaveLength(0)
  })
})
