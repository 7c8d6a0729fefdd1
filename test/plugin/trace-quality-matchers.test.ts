import { describe, expect, it } from 'vitest'
import '../../plugin/matchers.ts'
import { ev, trace } from '../evaluators/trace-fixture.ts'
import { failureOf } from './failure-of.ts'

// search → open, three times over, learning nothing new: a cycle no single repeated call reveals below minRepeats 4.
const cycling = trace(
  ...[0, 1, 2].flatMap(() => [
    ev.call('search', { q: 'x' }),
    ev.result('search', []),
    ev.call('open', { id: 1 }),
    ev.result('open', 'missing'),
  ]),
  ev.answer('nothing found'),
)

describe('toHaveNoLoops with cycles', () => {
  it('fails on a cycle of calls with no new observation, naming its steps', () => {
    expect(failureOf(() => expect(cycling).toHaveNoLoops({ minRepeats: 4 }))).toBe(
      'cycle search → open repeated 3 times with no new observation: 6 calls at steps 0, 2, 4, 6, 8, 10',
    )
  })

  it('lets cycles be switched off or tuned, and passes when each pass learns something', () => {
    expect(cycling).toHaveNoLoops({ minRepeats: 4, cycles: false })
    expect(cycling).toHaveNoLoops({ minRepeats: 4, minCycleRepeats: 4 })
    const learning = trace(
      ...[0, 1, 2].flatMap((i) => [
        ev.call('search', { q: 'x' }),
        ev.result('search', [i]),
        ev.call('open', { id: 1 }),
        ev.result('open', `page ${i}`),
      ]),
    )
    expect(learning).toHaveNoLoops({ minRepeats: 4 })
  })

  it('reports repeats and cycles together', () => {
    const message = failureOf(() => expect(cycling).toHaveNoLoops())
    expect(message).toMatch(/^tool "search" called 3 times with the same arguments at steps 0, 4, 8; /)
    expect(message).toContain('; cycle search → open repeated 3 times')
  })
})

describe('toHaveNoHallucinatedToolResults', () => {
  it('passes when every claim about a tool is grounded in its results', () => {
    expect(
      trace(
        ev.call('get_weather', { city: 'Paris' }),
        ev.result('get_weather', { temp_c: 18 }),
        ev.answer('get_weather returned 18 degrees.'),
      ),
    ).toHaveNoHallucinatedToolResults()
  })

  it('fails naming the answer step when it cites a tool that never ran', () => {
    const events = trace(
      ev.call('search'),
      ev.result('search', { hits: 2 }),
      ev.answer('According to get_weather, it is 18C.'),
    )
    expect(failureOf(() => expect(events).toHaveNoHallucinatedToolResults())).toBe(
      'final answer (step 2) cites "get_weather" ("According to get_weather"), but "get_weather" was never called before it',
    )
    expect(events).not.toHaveNoHallucinatedToolResults()
  })
})
