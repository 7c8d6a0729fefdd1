import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  createRedactor,
  describeThrown,
  MAX_STACK_FRAMES,
  MAX_THROWN_MESSAGE,
  userFrames,
} from '../../src/core/index.ts'

/** This package's folder, as the trimming finds it. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '')
const CWD = '/home/user/project'

describe('userFrames: the stack as the user can act on it', () => {
  it("keeps the user's frames, relative to the working folder, and drops Node's, node_modules' and ours", () => {
    const stack = [
      'TypeError: boom',
      '    at parse (/home/user/project/src/agent.ts:12:7)',
      `    at runAgent (${ROOT}/src/engine/run-agent.ts:71:40)`,
      `    at file://${ROOT}/dist/chunk-ABC123.js:880:11`,
      `    at Object.run (${ROOT}/plugin/eval-benchmark.ts:190:9)`,
      '    at Module.run (/home/user/project/node_modules/agentevalops/dist/chunk-XYZ.js:10:2)',
      // What --enable-source-maps makes of an installed package's dist frame: a .ts file the package never shipped.
      '    at settle (/home/user/project/node_modules/agentevalops/src/engine/run-agent.ts:80:3)',
      '    at file:///home/user/project/node_modules/@vitest/runner/dist/chunk-artifact.js:1903:20',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      '    at async Promise.all (index 0)',
      '    at JSON.parse (<anonymous>)',
      '    at async file:///home/user/project/evals/my.eval.ts:30:5',
      '    at helper (/elsewhere/lib/helper.js:3:1)',
    ].join('\n')
    expect(userFrames(stack, CWD)).toEqual([
      'parse (src/agent.ts:12:7)',
      'evals/my.eval.ts:30:5',
      'helper (/elsewhere/lib/helper.js:3:1)',
    ])
  })

  it('keeps no more than MAX_STACK_FRAMES frames, the top ones', () => {
    const frames = Array.from(
      { length: MAX_STACK_FRAMES + 5 },
      (_, i) => `    at f${i} (${CWD}/a.js:${i + 1}:1)`,
    )
    const kept = userFrames(['Error: deep', ...frames].join('\n'), CWD)
    expect(kept).toHaveLength(MAX_STACK_FRAMES)
    expect(kept[0]).toBe('f0 (a.js:1:1)')
  })
})

describe('describeThrown', () => {
  it('names the type of an Error subclass, its code, and redacts its message and frames', () => {
    class QuotaError extends Error {
      code = 'E_QUOTA'
    }
    const redactor = createRedactor([['s3cr3t-value', '[REDACTED:MY_TOKEN]']])
    const error = new QuotaError('over quota for s3cr3t-value')
    error.stack = `QuotaError: over quota for s3cr3t-value\n    at call (${CWD}/s3cr3t-value/x.js:1:2)`
    const thrown = describeThrown(error, redactor)
    expect(thrown.type).toBe('QuotaError')
    expect(thrown.code).toBe('E_QUOTA')
    expect(thrown.message).toBe('over quota for [REDACTED:MY_TOKEN]')
    expect(thrown.stack).toHaveLength(1)
    expect(thrown.stack[0]).toContain('[REDACTED:MY_TOKEN]/x.js:1:2')
    expect(thrown.stack[0]).not.toContain('s3cr3t-value')
  })

  it("uses an error's own name when it sets one, and describes thrown values that are not errors", () => {
    expect(describeThrown(new DOMException('stop', 'AbortError')).type).toBe('AbortError')
    expect(describeThrown(new RangeError('r')).type).toBe('RangeError')
    expect(describeThrown('plain text')).toEqual({ type: 'string', message: 'plain text', stack: [] })
    expect(describeThrown({ reason: 'x' })).toEqual({ type: 'object', message: '{"reason":"x"}', stack: [] })
    expect(describeThrown(null)).toEqual({ type: 'null', message: 'null', stack: [] })
    const long = describeThrown(new Error('x'.repeat(MAX_THROWN_MESSAGE + 10))).message
    expect(long).toBe(`${'x'.repeat(MAX_THROWN_MESSAGE)}… [10 more characters]`)
  })

  it('keeps the frame of the code that threw in a real stack, and none of the runner beneath it', () => {
    const thrown = describeThrown(new Error('real'))
    // This test file is the user's code here; the vitest runner beneath it is node_modules.
    expect(thrown.stack[0]).toContain(join('test', 'core', 'thrown-error.test.ts'))
    expect(thrown.stack.join('\n')).not.toMatch(/node_modules|node:/)
  })
})
