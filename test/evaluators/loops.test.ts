import { describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../src/core/index.ts'
import { findLoops } from '../../src/evaluators/index.ts'
import { ev, trace } from './trace-fixture.ts'

describe('findLoops', () => {
  it('names the tool, the count and every step of a loop', () => {
    const events = trace(
      ev.plan('go'),
      ...[1, 2, 3, 4].flatMap(() => [ev.call('search', { q: 'x', page: 1 }), ev.result('search', [])]),
      ev.answer('none'),
    )
    const r = findLoops(events)
    expect(r.pass).toBe(false)
    expect(r.message).toBe('tool "search" called 4 times with the same arguments at steps 1, 3, 5, 7')
    expect(r.steps).toEqual([1, 3, 5, 7])
  })

  it('does not count repeats that each brought a new result (a script re-run after every edit)', () => {
    const events = trace(
      ...['1 failed', '2 failed', 'all passed'].flatMap((output, n) => [
        ev.call('bash', { command: 'npm test' }),
        ev.result('bash', output),
        ev.call('edit', { n }),
      ]),
    )
    expect(findLoops(events).pass).toBe(true)
    expect(findLoops(events, { minRepeats: 2 }).pass).toBe(true)
  })

  it('treats arguments canonically: key order does not make calls different', () => {
    const events = trace(
      ev.call('search', { q: 'x', page: 1 }),
      ev.call('search', { page: 1, q: 'x' }),
      ev.call('search', { q: 'x', page: 1 }),
    )
    expect(findLoops(events).steps).toEqual([0, 1, 2])
  })

  it('passes when arguments differ or repeats stay under minRepeats', () => {
    const events = trace(
      ev.call('search', { q: 'a' }),
      ev.call('search', { q: 'b' }),
      ev.call('search', { q: 'c' }),
      ev.call('fetch', { url: 'u' }),
      ev.call('fetch', { url: 'u' }),
    )
    const r = findLoops(events)
    expect(r).toEqual({
      pass: true,
      message: 'no tool was called 3 or more times with the same arguments',
      steps: [],
    })
    expect(findLoops(events, { minRepeats: 2 }).message).toBe(
      'tool "fetch" called 2 times with the same arguments at steps 3, 4',
    )
  })

  it('reports every loop, steps sorted', () => {
    const events = trace(
      ev.call('a'),
      ev.call('b', { n: 1 }),
      ev.call('a'),
      ev.call('b', { n: 1 }),
      ev.call('a'),
      ev.call('b', { n: 1 }),
    )
    const r = findLoops(events)
    expect(r.message).toBe(
      'tool "a" called 3 times with the same arguments at steps 0, 2, 4; ' +
        'tool "b" called 3 times with the same arguments at steps 1, 3, 5',
    )
    expect(r.steps).toEqual([0, 1, 2, 3, 4, 5])
  })

  it('with a window, only counts repeats that fall within that many consecutive tool calls', () => {
    // "read" at calls #0, #4 and #8: three repeats overall, but never three within five calls.
    const calls = ['read', 'x1', 'x2', 'x3', 'read', 'x4', 'x5', 'x6', 'read'].map((tool) => ev.call(tool))
    const events = trace(...calls)
    expect(findLoops(events).pass).toBe(false)
    expect(findLoops(events, { window: 5 }).pass).toBe(true)
    expect(findLoops(events, { window: 9 }).steps).toEqual([0, 4, 8])
    // Repeats close together inside a long trace are still found, and only the dense cluster is named.
    const dense = trace(
      ev.call('r'),
      ...['a', 'b', 'c', 'd'].map((t) => ev.call(t)),
      ev.call('r'),
      ev.call('r'),
      ev.call('r'),
    )
    expect(findLoops(dense, { window: 3 }).message).toBe(
      'tool "r" called 3 times with the same arguments at steps 5, 6, 7',
    )
  })

  it('ignores tool results and other events', () => {
    const events = trace(
      ev.result('search', []),
      ev.result('search', []),
      ev.result('search', []),
      ev.model(),
      ev.model(),
    )
    expect(findLoops(events).pass).toBe(true)
  })

  it('rejects nonsensical options', () => {
    for (const opts of [{ minRepeats: 1 }, { minRepeats: 2.5 }, { window: 2 }]) {
      try {
        findLoops([], opts)
        expect.unreachable()
      } catch (e) {
        expect(isAgentEvalOpsError(e, 'CONFIG_INVALID')).toBe(true)
      }
    }
  })
})
