import { describe, expect, it } from 'vitest'
import { traceFileName } from '../../src/stores/index.ts'

describe('traceFileName', () => {
  it('keeps a readable stem and makes ids with slashes and spaces safe', () => {
    const name = traceFileName('HumanEval/0', 2)
    expect(name).toMatch(/^HumanEval_0\.[0-9a-f]{10}\.t2\.jsonl$/)
    expect(traceFileName('my task  with spaces', 0)).toMatch(/^my_task_with_spaces\.[0-9a-f]{10}\.t0\.jsonl$/)
  })

  it('never collides for distinct ids that sanitize alike', () => {
    const ids = ['a/b', 'a b', 'a_b', 'a\\b', 'a:b', 'A/b']
    const names = ids.map((id) => traceFileName(id, 0))
    expect(new Set(names).size).toBe(ids.length)
  })

  it('separates trials of one task', () => {
    expect(traceFileName('t', 0)).not.toBe(traceFileName('t', 1))
  })

  it('never yields a hidden file, a path step or an overlong name', () => {
    for (const id of ['..', '../../etc/passwd', '.hidden', '日本語', 'x'.repeat(500)]) {
      const name = traceFileName(id, 0)
      expect(name).not.toMatch(/^\./)
      expect(name).not.toContain('/')
      expect(name.length).toBeLessThanOrEqual(100)
    }
  })
})
