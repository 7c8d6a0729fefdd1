import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../../../src/core/index.ts'
import { analyzeTraceQuality } from '../../../src/evaluators/trace-quality/index.ts'
import { ev, trace, type Draft } from '../trace-fixture.ts'

const failed = (tool: string, result: JsonValue = 'timeout'): Draft => ({
  kind: 'agent.tool_result',
  payload: { tool, result, isError: true },
})
const callWithId = (tool: string, args: JsonValue, callId: string): Draft => ({
  kind: 'agent.tool_call',
  payload: { tool, args, callId },
})
const resultWithId = (tool: string, result: JsonValue, callId: string): Draft => ({
  kind: 'agent.tool_result',
  payload: { tool, result, callId },
})

const typesOf = (events: ReturnType<typeof trace>, opts = {}) =>
  analyzeTraceQuality(events, opts).findings.map((f) => f.type)

describe('redundant_call', () => {
  const events = trace(
    ev.call('read', { path: 'a' }), // 0
    ev.result('read', 'alpha beta'), // 1
    ev.call('write', { path: 'b' }), // 2
    ev.result('write', 'ok'), // 3
    ev.call('read', { path: 'a' }), // 4
    ev.result('read', 'alpha beta'), // 5
    ev.answer('alpha'), // 6
  )

  it('cites the earlier call and the repeat, and lowers the score without failing', () => {
    const r = analyzeTraceQuality(events)
    expect(r.findings).toEqual([
      {
        type: 'redundant_call',
        message:
          'tool "read" called again at step 4 with the same arguments as at step 0, whose result (step 1) it already had',
        citations: [0, 4],
      },
    ])
    expect(r.passed).toBe(true)
    expect(r.score).toBeCloseTo(2 / 3)
  })

  it('spares a repeat whose result differs: something had changed', () => {
    const changed = trace(
      ev.call('read', { path: 'a' }),
      ev.result('read', 'alpha beta'),
      ev.call('write', { path: 'a' }),
      ev.call('read', { path: 'a' }),
      ev.result('read', 'gamma'),
    )
    expect(typesOf(changed)).toEqual([])
  })

  it('only looks at idempotentTools when they are given', () => {
    expect(typesOf(events, { idempotentTools: ['search'] })).toEqual([])
    expect(typesOf(events, { idempotentTools: ['read'] })).toEqual(['redundant_call'])
  })

  it('is not redundant when the earlier result failed or had not arrived yet', () => {
    const afterError = trace(
      ev.call('read', { path: 'a' }),
      failed('read'),
      ev.call('login'),
      ev.call('read', { path: 'a' }),
      ev.result('read', 'alpha'),
    )
    expect(typesOf(afterError)).toEqual([])
    const parallel = trace(
      ev.call('read', { path: 'a' }),
      ev.call('read', { path: 'a' }),
      ev.result('read', 'alpha'),
      ev.result('read', 'alpha'),
    )
    expect(typesOf(parallel)).toEqual([])
  })

  it('pairs results with calls by callId, whatever their order', () => {
    const r = analyzeTraceQuality(
      trace(
        callWithId('search', { q: 'a' }, 'c1'), // 0
        callWithId('search', { q: 'b' }, 'c2'), // 1
        resultWithId('search', 'B', 'c2'), // 2
        resultWithId('search', 'A', 'c1'), // 3
        callWithId('search', { q: 'a' }, 'c3'), // 4
        resultWithId('search', 'A', 'c3'), // 5
      ),
    )
    expect(r.findings.map((f) => f.message)).toEqual([
      'tool "search" called again at step 4 with the same arguments as at step 0, whose result (step 3) it already had',
    ])
  })
})

describe('retry_without_change', () => {
  it('cites the failed call and its unchanged retry, and fails', () => {
    const r = analyzeTraceQuality(
      trace(
        ev.call('fetch', { url: 'u' }), // 0
        failed('fetch'), // 1
        ev.model(), // 2
        ev.call('fetch', { url: 'u' }), // 3
        ev.result('fetch', 'page'), // 4
        ev.answer('page'), // 5
      ),
    )
    expect(r.findings).toEqual([
      {
        type: 'retry_without_change',
        message:
          'tool "fetch" retried at step 3 with the same arguments after its call at step 0 failed (step 1)',
        citations: [0, 3],
      },
    ])
    expect(r.passed).toBe(false)
    expect(r.score).toBe(0.5)
  })

  it('reads an `error` key in the result as a failure, unless it is empty', () => {
    const withError = (error: JsonValue) =>
      trace(
        ev.call('fetch', { url: 'u' }),
        ev.result('fetch', { error, body: 'x' }),
        ev.call('fetch', { url: 'u' }),
        ev.result('fetch', { error: null, body: 'y' }),
      )
    expect(typesOf(withError('ENOENT'))).toEqual(['retry_without_change'])
    expect(typesOf(withError({ code: 404 }))).toEqual(['retry_without_change'])
    for (const none of [null, false, '']) expect(typesOf(withError(none))).toEqual([])
  })

  it('is not a blind retry when the arguments changed or another call came first', () => {
    const changedArgs = trace(ev.call('fetch', { url: 'u' }), failed('fetch'), ev.call('fetch', { url: 'v' }))
    expect(typesOf(changedArgs)).toEqual([])
    const fixedFirst = trace(
      ev.call('read', { path: 'a' }),
      failed('read', 'ENOENT'),
      ev.call('write', { path: 'a' }),
      ev.call('read', { path: 'a' }),
    )
    expect(typesOf(fixedFirst)).toEqual([])
  })

  it('flags the same failed call sent again later with the same error, citing both calls', () => {
    const book = ev.call('book_reservation', { flight: 'HAT136', payment: 'certificate_7504069' })
    const userTurn: Draft = { kind: 'agent.observation', payload: { text: 'Please try once more.' } }
    const events = trace(
      book, // 0
      failed('book_reservation', 'Error: payment amount does not add up'), // 1
      ev.call('think', { thought: 'maybe a glitch' }), // 2
      ev.result('think', ''), // 3
      userTurn, // 4
      ev.call('get_user_details', { user_id: 'mia' }), // 5
      ev.result('get_user_details', { name: 'Mia' }), // 6
      book, // 7
      failed('book_reservation', 'Error: payment amount does not add up'), // 8
      ev.answer('Sorry, the booking failed.'),
    )
    const r = analyzeTraceQuality(events)
    expect(r.findings).toEqual([
      {
        type: 'retry_without_change',
        message:
          'tool "book_reservation" retried at step 7 with the same arguments as its call at step 0, and failed ' +
          'with the same error (steps 1, 8); nothing changed in between',
        citations: [0, 7],
      },
    ])
    expect(r.passed).toBe(false)
  })

  it('spares a later retry when the error changed or a write went through in between', () => {
    const call = ev.call('book_reservation', { flight: 'HAT136' })
    const otherError = trace(
      call,
      failed('book_reservation', 'Error: payment amount does not add up'),
      ev.call('think', { thought: 'hm' }),
      call,
      failed('book_reservation', 'Error: flight sold out'),
    )
    expect(typesOf(otherError)).toEqual([])
    const wroteBetween = trace(
      call,
      failed('book_reservation', 'Error: certificate not found'),
      ev.call('cancel_reservation', { id: 'HATHAU' }),
      ev.result('cancel_reservation', { status: 'cancelled' }),
      call,
      failed('book_reservation', 'Error: certificate not found'),
    )
    expect(typesOf(wroteBetween)).toEqual([])
    // A write that failed changed nothing.
    const failedWrite = trace(
      call,
      failed('book_reservation', 'Error: certificate not found'),
      ev.call('cancel_reservation', { id: 'HATHAU' }),
      failed('cancel_reservation', 'Error: already cancelled'),
      call,
      failed('book_reservation', 'Error: certificate not found'),
    )
    expect(typesOf(failedWrite)).toEqual(['retry_without_change'])
  })

  it('leaves a retry loop to repeated_call: no call is blamed twice', () => {
    const loop = trace(
      ...[1, 2, 3].flatMap(() => [ev.call('fetch', { url: 'u' }), failed('fetch')]),
      ev.answer('the site is down'),
    )
    expect(analyzeTraceQuality(loop).findings.map((f) => [f.type, f.citations])).toEqual([
      ['repeated_call', [0, 2, 4]],
    ])
  })
})
