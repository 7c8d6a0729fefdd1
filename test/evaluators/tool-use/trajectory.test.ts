import { describe, expect, it } from 'vitest'
import { isAgentEvalOpsError, type JsonValue } from '../../../src/core/index.ts'
import { checkTrajectory, type ReferenceCall } from '../../../src/evaluators/tool-use/index.ts'
import { ev, trace } from '../trace-fixture.ts'

const events = trace(
  ev.plan('search, read, search again'), // 0
  ev.call('search', { q: 'x' }), // 1
  ev.result('search', ['u']), // 2
  ev.call('fetch', { url: 'u' }), // 3
  ev.result('fetch', 'page'), // 4
  ev.call('search', { q: 'y' }), // 5
  ev.answer('done'), // 6
)

const search = (q: string): ReferenceCall => ({ tool: 'search', args: { q } })
const fetch = (url: string): ReferenceCall => ({ tool: 'fetch', args: { url } })

describe('checkTrajectory: exact', () => {
  it('passes the same calls in the same order, citing them', () => {
    expect(checkTrajectory(events, [search('x'), fetch('u'), search('y')], { mode: 'exact' })).toEqual({
      pass: true,
      score: 1,
      message: 'exact: the 3 calls match the reference in order (steps 1, 3, 5)',
      steps: [1, 3, 5],
      findings: [],
    })
    expect(checkTrajectory(trace(ev.answer('a')), [], { mode: 'exact' })).toMatchObject({
      pass: true,
      message: 'exact: no tool calls, as in the reference',
    })
  })

  it('a reference call without args accepts any arguments', () => {
    expect(
      checkTrajectory(events, [{ tool: 'search' }, { tool: 'fetch' }, search('y')], { mode: 'exact' }).pass,
    ).toBe(true)
  })

  it('argument_mismatch: the right tool with other arguments, shown canonically', () => {
    const r = checkTrajectory(
      events,
      [search('x'), { tool: 'fetch', args: { url: 'v', depth: 1 } }, search('y')],
      {
        mode: 'exact',
      },
    )
    expect(r).toEqual({
      pass: false,
      score: 0,
      message: 'exact: call #2 expected fetch {"depth":1,"url":"v"} but got fetch {"url":"u"} at step 3',
      steps: [3],
      findings: [
        {
          type: 'argument_mismatch',
          message: 'exact: call #2 expected fetch {"depth":1,"url":"v"} but got fetch {"url":"u"} at step 3',
          citations: [3],
        },
      ],
    })
  })

  it('out_of_order: a reference call made at another position', () => {
    const r = checkTrajectory(events, [fetch('u'), search('x'), search('y')], { mode: 'exact' })
    expect(r.pass).toBe(false)
    expect(r.steps).toEqual([3])
    expect(r.findings).toEqual([
      {
        type: 'out_of_order',
        message: 'exact: call #1 expected fetch {"url":"u"} but it came later, as call #2 at step 3',
        citations: [3],
      },
    ])
    expect(
      checkTrajectory(events, [fetch('u'), search('y'), search('x')], { mode: 'exact' }).findings,
    ).toEqual([
      {
        type: 'out_of_order',
        message: 'exact: call #3 expected search {"q":"x"} but it came earlier, as call #1 at step 1',
        citations: [1],
      },
    ])
    // The same calls in the same order again: no out_of_order.
    expect(
      checkTrajectory(events, [search('x'), fetch('u'), search('y')], { mode: 'exact' }).findings,
    ).toEqual([])
  })

  it('a call in place of another is one finding naming both', () => {
    const r = checkTrajectory(events, [search('x'), { tool: 'save', args: { id: 1 } }, search('y')], {
      mode: 'exact',
    })
    expect(r.message).toBe('exact: call #2 expected save {"id":1} but got fetch {"url":"u"} at step 3')
    expect(r.findings).toEqual([
      {
        type: 'unexpected_call',
        message: 'exact: call #2 expected save {"id":1} but got fetch {"url":"u"} at step 3',
        citations: [3],
      },
    ])
  })

  it('missing_call: the trace stops short of the reference', () => {
    const r = checkTrajectory(events, [search('x'), fetch('u'), search('y'), { tool: 'save' }], {
      mode: 'exact',
    })
    expect(r).toMatchObject({
      pass: false,
      score: 0,
      message: 'exact: missing reference call #4 save (any arguments)',
      steps: [],
      findings: [
        {
          type: 'missing_call',
          message: 'exact: missing reference call #4 save (any arguments)',
          citations: [],
        },
      ],
    })
  })

  it('unexpected_call: an extra call, blamed alone rather than shifting every later position', () => {
    const r = checkTrajectory(events, [search('x'), search('y')], { mode: 'exact' })
    expect(r).toMatchObject({
      pass: false,
      message: 'exact: unexpected call fetch {"url":"u"} at step 3',
      steps: [3],
      findings: [{ type: 'unexpected_call', citations: [3] }],
    })
    const trailing = checkTrajectory(events, [search('x'), fetch('u')], { mode: 'exact' })
    expect(trailing.message).toBe('exact: unexpected call search {"q":"y"} at step 5')
    expect(trailing.steps).toEqual([5])
  })

  it('lists several findings in trace order', () => {
    const r = checkTrajectory(events, [{ tool: 'plan' }, search('x'), fetch('v')], { mode: 'exact' })
    expect(r.findings.map((f) => f.type)).toEqual(['missing_call', 'argument_mismatch', 'unexpected_call'])
    expect(r.message).toBe(
      'exact: missing reference call #1 plan (any arguments); call #3 expected fetch {"url":"v"} but got fetch {"url":"u"} at step 3; unexpected call search {"q":"y"} at step 5',
    )
    expect(r.steps).toEqual([3, 5])
  })

  it('keeps long arguments short in messages', () => {
    const long = 'a'.repeat(200)
    const r = checkTrajectory(trace(ev.call('search', { q: long })), [search('b')], { mode: 'exact' })
    expect(r.message).toBe(
      `exact: call #1 expected search {"q":"b"} but got search {"q":"${'a'.repeat(74)}… (208 chars) at step 0`,
    )
  })
})

describe('checkTrajectory: unordered', () => {
  it('passes the same multiset of calls in another order', () => {
    expect(checkTrajectory(events, [search('y'), fetch('u'), search('x')], { mode: 'unordered' })).toEqual({
      pass: true,
      score: 1,
      message: 'unordered: the 3 calls match the reference in some order (steps 1, 3, 5)',
      steps: [1, 3, 5],
      findings: [],
    })
  })

  it('reports missing and unexpected calls, the missing one pointing at its closest call', () => {
    const r = checkTrajectory(events, [search('x'), search('z')], { mode: 'unordered' })
    expect(r.pass).toBe(false)
    expect(r.score).toBeCloseTo(1 / 3) // 1 matched / max(2 reference, 3 calls)
    expect(r.steps).toEqual([3, 5])
    expect(r.message).toBe(
      'unordered: missing reference call #2 search {"q":"z"} (closest: search {"q":"y"} at step 5); unexpected call fetch {"url":"u"} at step 3; unexpected call search {"q":"y"} at step 5',
    )
    expect(r.findings).toEqual([
      {
        type: 'missing_call',
        message:
          'unordered: missing reference call #2 search {"q":"z"} (closest: search {"q":"y"} at step 5)',
        citations: [5],
      },
      {
        type: 'unexpected_call',
        message: 'unordered: unexpected call fetch {"url":"u"} at step 3',
        citations: [3],
      },
      {
        type: 'unexpected_call',
        message: 'unordered: unexpected call search {"q":"y"} at step 5',
        citations: [5],
      },
    ])
  })

  it('counts multiplicity: one reference call cannot cover two calls', () => {
    const twice = trace(ev.call('search', { q: 'x' }), ev.call('search', { q: 'x' }))
    const r = checkTrajectory(twice, [search('x')], { mode: 'unordered' })
    expect(r).toMatchObject({
      pass: false,
      score: 0.5,
      steps: [1],
      message: 'unordered: unexpected call search {"q":"x"} at step 1',
    })
  })

  it('finds the pairing a greedy first-fit misses', () => {
    // Greedy gives the any-arguments call step 0, leaving {"q":"x"} nothing; the only full pairing swaps them.
    const calls = trace(ev.call('search', { q: 'x' }), ev.call('search', { q: 'y' }))
    const r = checkTrajectory(calls, [{ tool: 'search' }, search('x')], { mode: 'unordered' })
    expect(r).toMatchObject({ pass: true, score: 1, steps: [0, 1] })
  })
})

describe('checkTrajectory: contains', () => {
  it('passes when every reference call was made, other calls allowed', () => {
    expect(checkTrajectory(events, [search('y'), fetch('u')], { mode: 'contains' })).toEqual({
      pass: true,
      score: 1,
      message: 'contains: all 2 reference calls were made (steps 3, 5)',
      steps: [3, 5],
      findings: [],
    })
    expect(checkTrajectory(events, [], { mode: 'contains' }).message).toBe(
      'contains: the reference is empty: no call was required',
    )
  })

  it('reports only the missing calls; extra calls are free', () => {
    const r = checkTrajectory(events, [fetch('u'), { tool: 'save', args: { id: 1 } }], { mode: 'contains' })
    expect(r).toEqual({
      pass: false,
      score: 0.5, // 1 matched / 2 reference calls
      message: 'contains: missing reference call #2 save {"id":1}',
      steps: [],
      findings: [
        { type: 'missing_call', message: 'contains: missing reference call #2 save {"id":1}', citations: [] },
      ],
    })
  })

  it('needs a call per reference call', () => {
    const r = checkTrajectory(events, [fetch('u'), fetch('u')], { mode: 'contains' })
    expect(r.message).toBe('contains: missing reference call #2 fetch {"url":"u"}')
  })
})

describe('checkTrajectory: within', () => {
  it('passes when every call made is in the reference; reference calls may be skipped', () => {
    const r = checkTrajectory(events, [search('x'), { tool: 'save' }, fetch('u'), search('y')], {
      mode: 'within',
    })
    expect(r).toEqual({
      pass: true,
      score: 1,
      message: 'within: all 3 calls are in the reference (steps 1, 3, 5)',
      steps: [1, 3, 5],
      findings: [],
    })
    expect(checkTrajectory(trace(ev.answer('a')), [search('x')], { mode: 'within' }).message).toBe(
      'within: no tool calls were made',
    )
  })

  it('reports only the calls outside the reference', () => {
    const r = checkTrajectory(events, [search('x'), fetch('u'), { tool: 'save' }], { mode: 'within' })
    expect(r).toEqual({
      pass: false,
      score: 2 / 3, // 2 matched / 3 calls
      message: 'within: unexpected call search {"q":"y"} at step 5',
      steps: [5],
      findings: [
        {
          type: 'unexpected_call',
          message: 'within: unexpected call search {"q":"y"} at step 5',
          citations: [5],
        },
      ],
    })
  })
})

describe('checkTrajectory: argument matchers', () => {
  const geo = trace(
    ev.call('geocode', { place: 'Paris', at: { lat: 48.8566, lon: 2.3522 }, zoom: [1, 2.004] }), // 0
    ev.call('search', { q: 'x', filter: { lang: 'en', year: 2024 }, limit: 5 }), // 1
  )

  it('tolerance: numbers within it match, recursively; everything else stays exact', () => {
    const ref: ReferenceCall[] = [
      { tool: 'geocode', args: { place: 'Paris', at: { lat: 48.86, lon: 2.35 }, zoom: [1, 2] } },
    ]
    expect(checkTrajectory(geo, ref, { mode: 'contains', args: { geocode: { tolerance: 0.01 } } }).pass).toBe(
      true,
    )
    expect(
      checkTrajectory(geo, ref, { mode: 'contains', args: { geocode: { tolerance: 0.001 } } }).pass,
    ).toBe(false)
    expect(checkTrajectory(geo, ref, { mode: 'contains' }).pass).toBe(false)
    const otherPlace: ReferenceCall[] = [
      { tool: 'geocode', args: { place: 'Lyon', at: { lat: 48.86, lon: 2.35 }, zoom: [1, 2] } },
    ]
    expect(
      checkTrajectory(geo, otherPlace, { mode: 'contains', args: { geocode: { tolerance: 100 } } }).pass,
    ).toBe(false)
  })

  it('subset: the reference keys must match, nested objects as subsets too', () => {
    const ok: ReferenceCall[] = [{ tool: 'search', args: { filter: { lang: 'en' } } }]
    expect(checkTrajectory(geo, ok, { mode: 'contains', args: { search: 'subset' } })).toMatchObject({
      pass: true,
      steps: [1],
    })
    const wrong: ReferenceCall[] = [{ tool: 'search', args: { filter: { lang: 'fr' } } }]
    const r = checkTrajectory(geo, wrong, { mode: 'contains', args: { search: 'subset' } })
    expect(r.message).toBe(
      'contains: missing reference call #1 search {"filter":{"lang":"fr"}} (closest: search {"filter":{"lang":"en","year":2024},"limit":5,"q":"x"} at step 1)',
    )
    expect(r.steps).toEqual([1])
    // Without the subset matcher the same reference must equal the whole arguments.
    expect(checkTrajectory(geo, ok, { mode: 'contains' }).pass).toBe(false)
  })

  it('a custom function decides, and sees undefined when the reference gives no arguments', () => {
    const seen: (JsonValue | undefined)[] = []
    const limitAtMost = (actual: JsonValue, expected: JsonValue | undefined) => {
      seen.push(expected)
      const limit =
        typeof actual === 'object' && actual !== null && !Array.isArray(actual) ? actual.limit : undefined
      return typeof limit === 'number' && limit <= 10
    }
    expect(
      checkTrajectory(geo, [{ tool: 'search' }], { mode: 'contains', args: { search: limitAtMost } }).pass,
    ).toBe(true)
    expect(seen).toEqual([undefined])
    const strict = () => false
    expect(
      checkTrajectory(geo, [{ tool: 'search' }], { mode: 'contains', args: { search: strict } }).pass,
    ).toBe(false)
  })

  it('a tool named like an Object.prototype method gets no matcher from the prototype', () => {
    const r = checkTrajectory(trace(ev.call('toString', { a: 1 })), [{ tool: 'toString', args: { a: 2 } }], {
      mode: 'exact',
      args: {},
    })
    expect(r.pass).toBe(false)
  })
})

describe('checkTrajectory: options', () => {
  it('throws CONFIG_INVALID for an unknown mode or a bad matcher', () => {
    const bad = [
      { mode: 'strict' },
      { mode: 'exact', args: { search: { tolerance: -1 } } },
      { mode: 'exact', args: { search: 'fuzzy' } },
    ] as unknown as Parameters<typeof checkTrajectory>[2][]
    for (const options of bad) {
      let error: unknown
      try {
        checkTrajectory(events, [], options)
      } catch (e) {
        error = e
      }
      expect(isAgentEvalOpsError(error, 'CONFIG_INVALID'), JSON.stringify(options)).toBe(true)
    }
  })
})
