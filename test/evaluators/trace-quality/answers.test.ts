import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../../../src/core/index.ts'
import {
  analyzeTraceQuality,
  findHallucinatedToolResults,
  TOOL_CLAIM_PATTERNS,
} from '../../../src/evaluators/trace-quality/index.ts'
import { ev, trace, type Draft } from '../trace-fixture.ts'

const said = (text: string): Draft => ({ kind: 'agent.model_call', payload: { model: 'm', text } })
const failed = (tool: string, result: JsonValue): Draft => ({
  kind: 'agent.tool_result',
  payload: { tool, result, isError: true },
})
const callWithId = (tool: string, callId: string): Draft => ({
  kind: 'agent.tool_call',
  payload: { tool, args: {}, callId },
})
const resultWithId = (tool: string, result: JsonValue, callId: string): Draft => ({
  kind: 'agent.tool_result',
  payload: { tool, result, callId },
})

const FORECAST = 'Paris forecast: heavy thunderstorms expected tonight'

describe('dead_end', () => {
  it('flags a result nothing after it refers to, right before the answer, citing result and answer', () => {
    const r = analyzeTraceQuality(
      trace(
        ev.call('search', { q: 'weather paris' }), // 0
        ev.result('search', FORECAST), // 1
        said('Composing the reply'), // 2
        ev.answer('I could not find anything.'), // 3
      ),
    )
    expect(r.findings).toEqual([
      {
        type: 'dead_end',
        message:
          'result of "search" at step 1 was never used: no later text refers to it and no tool call follows it ' +
          'before the final answer at step 3',
        citations: [1, 3],
      },
    ])
    // An ignored result lowers the score (its call was wasted) but does not fail the trial by default.
    expect(r.passed).toBe(true)
    expect(r.score).toBe(0)
    expect(
      analyzeTraceQuality(trace(ev.call('search'), ev.result('search', FORECAST), ev.answer('no')), {
        failOn: ['dead_end'],
      }).passed,
    ).toBe(false)
  })

  it('reads values, not keys, and judges only the results after the last call', () => {
    const events = trace(
      ev.call('a'), // 0
      ev.result('a', { forecast: FORECAST }), // 1: followed by another call, so not judged
      ev.call('b'), // 2
      ev.result('b', { summary: 'quarterly revenue grew strongly' }), // 3
      ev.result('c', 'warehouse inventory reconciled yesterday'), // 4: a second result, before the answer too
      ev.answer('The summary: forecast is fine.'), // 5
    )
    expect(analyzeTraceQuality(events).findings.map((f) => [f.type, f.citations])).toEqual([
      ['dead_end', [3, 5]],
      ['hallucinated_tool_result', [4]], // "c" was never called
    ])
  })

  it('is not a dead end when a later text refers to the result (a true negative)', () => {
    for (const later of [
      [ev.answer('Expect thunderstorms tonight.')],
      [said('The forecast says storms'), ev.answer('Take an umbrella.')],
    ]) {
      const events = trace(ev.call('search'), ev.result('search', FORECAST), ...later)
      expect(analyzeTraceQuality(events).findings).toEqual([])
    }
  })

  it('does not judge acknowledgements, errors, or a trace without an answer', () => {
    const cases = [
      [ev.call('write'), ev.result('write', 'File written successfully'), ev.answer('Saved the report.')],
      [ev.call('write'), ev.result('write', { status: 'ok', created: true }), ev.answer('Done.')],
      [ev.call('fetch'), failed('fetch', 'upstream gateway refused connection'), ev.answer('Sorry.')],
      [ev.call('search'), ev.result('search', FORECAST)],
    ]
    for (const drafts of cases) expect(analyzeTraceQuality(trace(...drafts)).findings).toEqual([])
  })
  it('is not a dead end when the result confirms a write the answer reports as done', () => {
    const reservation = {
      reservation_id: 'D1EW9B',
      status: 'cancelled',
      flights: [{ flight_number: 'HAT285', origin: 'ATL', destination: 'JFK' }],
      passengers: [{ first_name: 'Mohamed', last_name: 'Hernandez' }],
    }
    for (const tool of ['cancel_reservation', 'updateReservation', 'crm.update-contact', 'book_flight']) {
      const events = trace(
        ev.call(tool, { reservation_id: 'D1EW9B' }),
        ev.result(tool, reservation),
        ev.answer('Done: it went through, your refund follows in 5 to 7 business days.'),
      )
      expect(analyzeTraceQuality(events).findings).toEqual([])
    }
    // A read's result is still judged.
    const read = trace(
      ev.call('get_reservation_details', { reservation_id: 'D1EW9B' }),
      ev.result('get_reservation_details', reservation),
      ev.answer('Done: it went through, your refund follows in 5 to 7 business days.'),
    )
    expect(analyzeTraceQuality(read).findings.map((f) => [f.type, f.citations])).toEqual([
      ['dead_end', [1, 2]],
    ])
    // So is a write that failed: the answer should say so (and an error is never a dead end).
    const failedWrite = trace(
      ev.call('cancel_reservation', { reservation_id: 'D1EW9B' }),
      failed('cancel_reservation', 'reservation already flown, cannot cancel'),
      ev.answer('Done.'),
    )
    expect(analyzeTraceQuality(failedWrite).findings).toEqual([])
  })

  it('matches words by their stems: spelling variants and inflections refer to the result', () => {
    const status = (text: string) =>
      trace(
        ev.call('get_order_status', { id: 7 }),
        ev.result('get_order_status', { order: 'W2378156', state: text, carrier: 'UPS Ground freight' }),
        ev.answer('Your order was canceled yesterday and the refunds are on their way.'),
      )
    for (const word of ['cancelled', 'cancellation confirmed', 'refunded', 'organised refund']) {
      expect(analyzeTraceQuality(status(word)).findings).toEqual([])
    }
    expect(analyzeTraceQuality(status('shipped')).findings.map((f) => f.type)).toEqual(['dead_end'])
  })

  it('reads the key of a yes/no value as what the value says', () => {
    const details = (insurance: JsonValue) =>
      trace(
        ev.call('get_reservation_details', { id: 'H8Q05L' }),
        ev.result('get_reservation_details', {
          reservation_id: 'H8Q05L',
          passengers: [{ first_name: 'Harper', last_name: 'Kovacs' }],
          insurance,
        }),
        ev.answer('I see that your reservation includes travel insurance, which is non-refundable.'),
      )
    for (const flag of ['yes', 'no', true, false])
      expect(analyzeTraceQuality(details(flag)).findings).toEqual([])
    expect(analyzeTraceQuality(details('basic')).findings.map((f) => f.type)).toEqual(['dead_end'])
  })
})

describe('hallucinated_tool_result', () => {
  it('flags an answer citing a tool that was never called', () => {
    const events = trace(
      ev.call('search', { q: 'x' }), // 0
      ev.result('search', { hits: 2 }), // 1
      ev.answer('According to get_weather, it is 18C in Paris.'), // 2
    )
    const r = findHallucinatedToolResults(events)
    expect(r).toEqual({
      pass: false,
      message:
        'final answer (step 2) cites "get_weather" ("According to get_weather"), but "get_weather" was never called before it',
      steps: [2],
      findings: [{ type: 'hallucinated_tool_result', message: r.message, citations: [2] }],
    })
    const report = analyzeTraceQuality(events)
    expect(report.passed).toBe(false)
    expect(report.score).toBe(0.5)
  })

  it('flags values attributed to a tool that none of its results contain, citing its calls', () => {
    const r = findHallucinatedToolResults(
      trace(
        ev.call('get_weather', { city: 'Paris' }), // 0
        ev.result('get_weather', { temp_c: 18, sky: 'cloudy' }), // 1
        ev.call('get_weather', { city: 'Lyon' }), // 2
        ev.result('get_weather', { temp_c: 21, sky: 'clear' }), // 3
        ev.answer('get_weather returned 25 degrees and "sunny" skies.'), // 4
      ),
    )
    expect(r.message).toBe(
      'final answer (step 4) attributes "sunny", 25 to "get_weather" ("get_weather returned"), but no result of ' +
        '"get_weather" (called at steps 0, 2) contains any of them',
    )
    expect(r.steps).toEqual([0, 2, 4])
  })

  it('accepts claims grounded in the results (true negatives)', () => {
    const weather = [
      ev.call('get_weather', { city: 'Paris' }),
      ev.result('get_weather', { temp_c: 18.4, sky: 'partly cloudy' }),
    ]
    const search = [ev.call('search'), ev.result('search', [{ t: 'a' }, { t: 'b' }, { t: 'c' }])]
    const stats = [ev.call('get_stats'), ev.result('get_stats', { rate: 0.25 })]
    for (const answer of [
      'get_weather returned 18 degrees.', // rounded
      'get_weather returned 18.4 degrees.',
      'get_stats shows a 25% success rate.', // a fraction, as a percentage
      'The result of `get_weather` was "Partly Cloudy", 18C.', // quotes match case-insensitively
      'Get_Weather shows 18.4 and 35 (one of them is right).', // one grounded value is enough
      'search returned 3 results.', // the length of a list counts
      'According to get_weather it will be pleasant.', // nothing checkable: not judged
      'According to Wikipedia, Paris has 2,100,000 people.', // not a tool name
      'It returned 42, the API said 7.', // plain words are not tools
    ]) {
      expect(
        findHallucinatedToolResults(trace(...weather, ...search, ...stats, ev.answer(answer))),
        answer,
      ).toMatchObject({
        pass: true,
        message:
          'every tool result follows a call of its tool, and every tool output the final answer cites occurred',
        steps: [],
      })
    }
  })

  it('recognises every documented claim form', () => {
    expect(TOOL_CLAIM_PATTERNS.map((p) => p.form)).toEqual([
      '<tool> returned X',
      'according to <tool>',
      'result of <tool>',
      '<tool> said/shows/reported',
    ])
    for (const answer of [
      'lookup_price returned 5.',
      'according to lookup_price, 5.',
      'The output of the lookup_price tool is 5.',
      'lookup_price reported 5.',
      'The `price` tool says 5.',
    ]) {
      const r = findHallucinatedToolResults(trace(ev.answer(answer)))
      expect(r.pass, answer).toBe(false)
      expect(r.findings.map((f) => f.citations)).toEqual([[0]])
    }
  })

  it('only counts tool output that came before the answer', () => {
    const r = findHallucinatedToolResults(
      trace(
        ev.call('calc'), // 0
        ev.result('calc', 4), // 1
        ev.answer('calc returned 7.'), // 2
        ev.call('calc'), // 3
        ev.result('calc', 7), // 4
      ),
    )
    expect(r.steps).toEqual([0, 2])
  })

  it('flags a tool result no call came before, by tool or by callId', () => {
    expect(findHallucinatedToolResults(trace(ev.result('search', ['x']), ev.answer('done'))).message).toBe(
      'tool_result of "search" at step 0 has no preceding tool_call of "search"',
    )
    const byId = findHallucinatedToolResults(
      trace(callWithId('search', 'c1'), resultWithId('search', 'x', 'c2'), resultWithId('search', 'y', 'c1')),
    )
    expect(byId.message).toBe(
      'tool_result of "search" at step 1 has callId "c2", but no earlier call of "search" has that callId',
    )
    expect(byId.steps).toEqual([1])
  })

  it('does not flag results matched by tool when calls carry no callIds, or a second result for one call', () => {
    const idsOnResults = trace(ev.call('search'), resultWithId('search', 'x', 'r1'))
    expect(findHallucinatedToolResults(idsOnResults).pass).toBe(true)
    const twice = trace(
      callWithId('search', 'c1'),
      resultWithId('search', 'x', 'c1'),
      resultWithId('search', 'y', 'c1'),
    )
    expect(findHallucinatedToolResults(twice).pass).toBe(true)
    const twiceByTool = trace(ev.call('search'), ev.result('search', 'x'), ev.result('search', 'y'))
    expect(findHallucinatedToolResults(twiceByTool).pass).toBe(true)
  })
})
