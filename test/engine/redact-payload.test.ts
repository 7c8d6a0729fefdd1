import { describe, expect, it } from 'vitest'
import { redactorFromEnv, TracePayloads } from '../../src/core/index.ts'
import { redactPayload } from '../../src/engine/redact-payload.ts'

describe('redactPayload', () => {
  const redactor = redactorFromEnv({ APP_PIN: '4821', AGENTEVALOPS_SECRETS: 'APP_PIN' })

  it('redacts a secret number in free-form fields and keeps the numbers the schema fixes', () => {
    const payload = { model: 'm', inputTokens: 4821, outputTokens: 3, request: { pin: 4821 } }
    const out = redactPayload(redactor, 'agent.model_call', payload)
    expect(out).toEqual({
      model: 'm',
      inputTokens: 4821,
      outputTokens: 3,
      request: { pin: '[REDACTED:APP_PIN]' },
    })
    expect(TracePayloads['agent.model_call'].safeParse(out).success).toBe(true)
    expect(redactPayload(redactor, 'agent.tool_result', { tool: 't', result: 4821 })).toEqual({
      tool: 't',
      result: '[REDACTED:APP_PIN]',
    })
  })

  it('returns the payload itself when nothing changes', () => {
    const payload = { tool: 't', args: { n: 1 } }
    expect(redactPayload(redactor, 'agent.tool_call', payload)).toBe(payload)
  })
})
