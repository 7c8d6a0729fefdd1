import { describe, expect, it } from 'vitest'
import { defineTask, isAgentEvalOpsError } from '../../src/core/index.ts'

describe('defineTask', () => {
  it('stamps a checksum that changes with the content', () => {
    const a = defineTask({ id: 't1', benchmark: 'b', prompt: 'What is 2+2?', expected: '4' })
    const b = defineTask({ id: 't1', benchmark: 'b', prompt: 'What is 2+3?', expected: '4' })
    expect(a.checksum).toMatch(/^[0-9a-f]{64}$/)
    expect(a.checksum).not.toBe(b.checksum)
    expect(defineTask({ id: 't1', benchmark: 'b', prompt: 'What is 2+2?', expected: '4' }).checksum).toBe(
      a.checksum,
    )
  })

  it('rejects a task without an id with a TASK_INVALID error', () => {
    try {
      defineTask({ id: '', benchmark: 'b', prompt: 'x' })
      expect.unreachable()
    } catch (e) {
      expect(isAgentEvalOpsError(e, 'TASK_INVALID')).toBe(true)
    }
  })
})
