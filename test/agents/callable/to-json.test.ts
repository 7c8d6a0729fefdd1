// toJson: whatever a tool takes or returns becomes plain JSON for its trace event, and any change is named.
import { describe, expect, it } from 'vitest'
import { toJson } from '../../../src/agents/callable/to-json.ts'

describe('toJson', () => {
  it('keeps plain JSON as it is, with no note', () => {
    const value = { a: [1, 'two', true, null, { b: -0.5 }], c: '' }
    expect(toJson(value, 'result')).toEqual({ value })
    expect(toJson('x', 'result')).toEqual({ value: 'x' })
  })

  it('leaves out undefined members as JSON.stringify does, without a note, and nulls them in arrays', () => {
    expect(toJson({ a: 1, b: undefined, c: [undefined] }, 'result')).toEqual({ value: { a: 1, c: [null] } })
  })

  it('records undefined, a function or a symbol at the top as null, with a note', () => {
    expect(toJson(undefined, 'result')).toEqual({
      value: null,
      note: 'result was undefined, recorded as null',
    })
    expect(toJson(() => 1, 'result')).toEqual({
      value: null,
      note: 'result was a function, recorded as null',
    })
    expect(toJson(Symbol('s'), 'args')).toEqual({ value: null, note: 'args was a symbol, recorded as null' })
  })

  it('converts what JSON cannot hold and says so, by path', () => {
    expect(toJson({ n: NaN, big: 2n ** 70n, f: () => 1, list: [Infinity] }, 'result')).toEqual({
      value: { n: null, big: '1180591620717411303424', list: [null] },
      note: 'result.n was NaN, recorded as null; result.big was a bigint, recorded as a string; result.f was a function, left out (and 1 more)',
    })
  })

  it('follows toJSON (Dates), and turns Errors, Maps, Sets and typed arrays into their JSON look-alikes', () => {
    const converted = toJson(
      {
        at: new Date(0),
        error: new TypeError('bad'),
        map: new Map<unknown, unknown>([
          ['k', 1],
          [2, 'v'],
        ]),
        set: new Set(['a', 'b']),
        bytes: new Uint8Array([1, 2]),
      },
      'result',
    )
    expect(converted.value).toEqual({
      at: '1970-01-01T00:00:00.000Z',
      error: { name: 'TypeError', message: 'bad' },
      map: { k: 1, '2': 'v' },
      set: ['a', 'b'],
      bytes: [1, 2],
    })
    expect(converted.note).toBe(
      'result.map was a Map, recorded as an object; result.set was a Set, recorded as an array',
    )
  })

  it('breaks cycles but keeps shared references that are not cycles', () => {
    const shared = { id: 1 }
    const node: Record<string, unknown> = { name: 'root', left: shared, right: shared }
    node.self = node
    expect(toJson(node, 'result')).toEqual({
      value: { name: 'root', left: { id: 1 }, right: { id: 1 }, self: '[Circular]' },
      note: 'result.self refers back to its own container, recorded as "[Circular]"',
    })
  })

  it('survives a toJSON that throws', () => {
    const hostile = {
      toJSON() {
        throw new Error('nope')
      },
    }
    expect(toJson({ h: hostile }, 'result')).toEqual({
      value: { h: null },
      note: 'result.h.toJSON() threw (nope), recorded as null',
    })
  })
})
