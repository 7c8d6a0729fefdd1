import { describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../src/core/index.ts'
import { MemoryTraceStore, traceFileName } from '../../src/stores/index.ts'
import { planEvent } from './fixtures.ts'

describe('MemoryTraceStore', () => {
  it('stores and reads back events under the same paths as the file store', async () => {
    const store = new MemoryTraceStore()
    const writer = store.open({ taskId: 'HumanEval/3', trial: 1 })
    expect(writer.path).toBe(traceFileName('HumanEval/3', 1))
    const events = [0, 1].map((s) => planEvent(s, 'HumanEval/3'))
    await Promise.all(events.map((e) => writer.append(e)))
    await writer.finalize()
    expect(await store.read(writer.path)).toEqual(events)
    expect(store.paths()).toEqual([writer.path])
  })

  it('keeps what was appended, not what the caller mutates later', async () => {
    const store = new MemoryTraceStore()
    const writer = store.open({ taskId: 't', trial: 0 })
    const event = planEvent(0, 't')
    await writer.append(event)
    event.step = 99
    expect((await store.read(writer.path))[0]?.step).toBe(0)
  })

  it('refuses appends after finalize with TRACE_STORE_CLOSED', async () => {
    const writer = new MemoryTraceStore().open({ taskId: 't', trial: 0 })
    await writer.finalize()
    expect(() => writer.append(planEvent(0, 't'))).toThrow(
      expect.objectContaining({ code: 'TRACE_STORE_CLOSED' }) as Error,
    )
  })

  it('validates events on read like the file store', async () => {
    const store = new MemoryTraceStore()
    const writer = store.open({ taskId: 't', trial: 0 })
    await writer.append({ ...planEvent(0, 't'), step: -1 })
    try {
      await store.read(writer.path)
      expect.unreachable()
    } catch (e) {
      expect(isAgentEvalOpsError(e, 'TRACE_INVALID')).toBe(true)
    }
  })
})
