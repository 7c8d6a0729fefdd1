// How an assert callback's failures become part of its trial: collected (thrown, expect.soft, with the steps the
// trace matchers cite) and folded into the record as its `assert` score, deciding passed/failed again.
import { describe, expect, it } from 'vitest'
import { runAssertions, withAssertScore, withoutAssertScore } from '../../plugin/assertions.ts'
import '../../plugin/matchers.ts'
import { createRedactor, TrialRecord } from '../../src/core/index.ts'
import { makeEvents, makeTrials } from '../bundles/fixtures.ts'

const noSecrets = createRedactor([])

/** The fixture's first trial (passed), parsed so defaults are filled in. */
function passedRecord(): TrialRecord {
  return TrialRecord.parse(makeTrials()[0])
}

const failing = { failures: [{ type: 'assertion' as const, message: 'no call', steps: [2] }], latencyMs: 1 }
const holding = { failures: [], latencyMs: 1 }

describe('runAssertions', () => {
  it('collects the thrown failure with the steps its matcher cites, and keeps the error to rethrow', async () => {
    const events = makeEvents(passedRecord())
    const test = {}
    const run = await runAssertions(() => expect(events).toCallTool('calc', { expr: '1+1' }), test)
    expect(run.failures).toEqual([
      { type: 'assertion', message: expect.stringContaining('"calc"') as string, steps: [2] },
    ])
    expect(run.thrown?.error).toBeInstanceOf(Error)
  })

  it('collects the expect.soft failures Vitest added to the case during the callback, and only those', async () => {
    const test = { result: { errors: [{ message: 'from before' }] as unknown[] } }
    const run = await runAssertions(() => {
      test.result.errors.push({ message: 'soft one' }, { message: 'soft two' })
    }, test)
    expect(run.failures.map((f) => f.message)).toEqual(['soft one', 'soft two'])
    expect(run.thrown).toBeUndefined()
  })

  it('names the type of an error that is not an assertion', async () => {
    const run = await runAssertions(() => {
      throw new RangeError('out of range')
    }, {})
    expect(run.failures).toEqual([{ type: 'threw', message: 'RangeError: out of range', steps: [] }])
  })
})

describe('withAssertScore', () => {
  it('fails a trial that passed everything else, citing the steps', () => {
    const folded = withAssertScore(passedRecord(), failing, noSecrets)
    expect(folded).toMatchObject({ outcome: 'failed', passed: false })
    expect(folded.scores.at(-1)).toMatchObject({
      evaluatorId: 'assert',
      kind: 'deterministic',
      score: 0,
      passed: false,
      explanation: 'no call',
      citations: [2],
      findings: [{ type: 'assertion', message: 'no call', citations: [2] }],
    })
  })

  it('adds a passing score, outcome unchanged, when every assertion held', () => {
    const folded = withAssertScore(passedRecord(), holding, noSecrets)
    expect(folded).toMatchObject({ outcome: 'passed', passed: true })
    expect(folded.scores.at(-1)).toMatchObject({ evaluatorId: 'assert', score: 1, passed: true })
  })

  it('replaces the score a resumed trial brought along, and decides its outcome again', () => {
    const earlier = withAssertScore(passedRecord(), failing, noSecrets)
    const again = withAssertScore(earlier, holding, noSecrets)
    expect(again).toMatchObject({ outcome: 'passed', passed: true })
    expect(again.scores.filter((s) => s.evaluatorId === 'assert')).toHaveLength(1)
    expect(withoutAssertScore(earlier)).toEqual(passedRecord())
  })

  it('leaves a more serious outcome as it is', () => {
    const violated = TrialRecord.parse(makeTrials()[3]) // task-1 #1: a policy violation
    expect(violated.outcome).toBe('policy_violation')
    expect(withAssertScore(violated, holding, noSecrets)).toMatchObject({
      outcome: 'policy_violation',
      passed: false,
    })
  })

  it('redacts secrets in the messages it keeps', () => {
    const redactor = createRedactor([['sk-live-123456789', '[REDACTED]']])
    const leaked = {
      failures: [{ type: 'assertion' as const, message: 'saw sk-live-123456789', steps: [] }],
      latencyMs: 0,
    }
    expect(withAssertScore(passedRecord(), leaked, redactor).scores.at(-1)?.findings[0]?.message).toBe(
      'saw [REDACTED]',
    )
  })
})
