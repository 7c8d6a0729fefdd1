import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { FullTrace } from '../../../src/core/index.ts'

/**
 * FullTraces in the seed's export shape (`{ traces: [FullTrace] }`, as its tests/fixtures/sample_traces.json has
 * them; our own data): a trip planner with two tools, one failing; a support bot that looks up the same order
 * three times; a run that timed out.
 */
export function fixtureTraces(): { trip: FullTrace; loop: FullTrace; timeout: FullTrace } {
  const text = readFileSync(new URL('../../fixtures/monitor/full-traces.json', import.meta.url), 'utf8')
  const [trip, loop, timeout] = z
    .object({ traces: z.array(FullTrace).length(3) })
    .parse(JSON.parse(text)).traces
  return { trip: trip!, loop: loop!, timeout: timeout! }
}
