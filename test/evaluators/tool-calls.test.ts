import { describe, expect, it } from 'vitest'
import { checkCallsTool, checkCallsToolsInOrder } from '../../src/evaluators/index.ts'
import { ev, trace } from './trace-fixture.ts'

const events = trace(
  ev.plan('weather, then convert'), // 0
  ev.call('get_weather', { city: 'Paris', units: { temp: 'C' } }), // 1
  ev.result('get_weather', { celsius: 18 }), // 2
  ev.call('convert', { celsius: 18, to: 'F' }), // 3
  ev.result('convert', 64.4), // 4
  ev.call('get_weather', { city: 'Lyon' }), // 5
  ev.answer('64.4F'), // 6
)

describe('checkCallsTool', () => {
  it('passes when the tool is called, naming the steps', () => {
    expect(checkCallsTool(events, 'get_weather')).toEqual({
      pass: true,
      message: 'tool "get_weather" called at steps 1, 5',
      steps: [1, 5],
    })
  })

  it('matches arguments partially, each given key deep-equal', () => {
    expect(checkCallsTool(events, 'get_weather', { city: 'Paris' }).steps).toEqual([1])
    expect(checkCallsTool(events, 'get_weather', { units: { temp: 'C' } }).steps).toEqual([1])
    expect(checkCallsTool(events, 'convert', { to: 'F', celsius: 18 }).pass).toBe(true)
  })

  it('names the calls that came closest when the arguments never match', () => {
    const r = checkCallsTool(events, 'get_weather', { city: 'Nice' })
    expect(r.pass).toBe(false)
    expect(r.steps).toEqual([1, 5])
    expect(r.message).toMatch(
      /^tool "get_weather" was called at steps 1, 5 but never with arguments matching/,
    )
    expect(r.message).toContain('{"city":"Lyon"} (step 5)')
    // A nested value must be equal as a whole, not merely overlap.
    expect(checkCallsTool(events, 'get_weather', { units: { temp: 'C', precision: 1 } }).pass).toBe(false)
  })

  it('lists the calls that were made when the tool never was', () => {
    const r = checkCallsTool(events, 'delete_database')
    expect(r).toEqual({
      pass: false,
      message:
        'tool "delete_database" was never called; tool calls: get_weather (step 1), convert (step 3), get_weather (step 5)',
      steps: [],
    })
    expect(checkCallsTool(trace(ev.answer('x')), 'a').message).toBe(
      'tool "a" was never called; tool calls: no tool calls',
    )
  })
})

describe('checkCallsToolsInOrder', () => {
  it('subsequence (the default): in this order, other calls allowed', () => {
    expect(checkCallsToolsInOrder(events, ['get_weather', 'convert'])).toMatchObject({
      pass: true,
      steps: [1, 3],
    })
    expect(checkCallsToolsInOrder(events, ['convert', 'get_weather'], { mode: 'subsequence' }).steps).toEqual(
      [3, 5],
    )
    expect(checkCallsToolsInOrder(events, []).pass).toBe(true)
  })

  it('subsequence failure names where the match got stuck', () => {
    const r = checkCallsToolsInOrder(events, ['convert', 'convert'])
    expect(r.pass).toBe(false)
    expect(r.steps).toEqual([3])
    expect(r.message).toMatch(/^expected "convert" to be called after "convert" at step 3, but it never was/)
    expect(checkCallsToolsInOrder(events, ['search']).message).toMatch(
      /^expected "search" to be called, but it never was/,
    )
  })

  it('exact: the whole tool-call sequence', () => {
    expect(
      checkCallsToolsInOrder(events, ['get_weather', 'convert', 'get_weather'], { mode: 'exact' }),
    ).toMatchObject({
      pass: true,
      steps: [1, 3, 5],
    })
  })

  it('exact failures name the diverging, extra or missing call', () => {
    const wrong = checkCallsToolsInOrder(events, ['get_weather', 'search', 'get_weather'], { mode: 'exact' })
    expect(wrong.steps).toEqual([3])
    expect(wrong.message).toMatch(/^expected call #2 to be "search", got "convert" at step 3/)

    const extra = checkCallsToolsInOrder(events, ['get_weather', 'convert'], { mode: 'exact' })
    expect(extra.steps).toEqual([5])
    expect(extra.message).toMatch(/^expected 2 tool calls, got extra calls at step 5/)

    const missing = checkCallsToolsInOrder(events, ['get_weather', 'convert', 'get_weather', 'save'], {
      mode: 'exact',
    })
    expect(missing).toMatchObject({ pass: false, steps: [] })
    expect(missing.message).toMatch(/^expected call #4 to be "save", but the trace ends there/)
  })
})
