import { describe, expect, it } from 'vitest'
import {
  isAgentEvalOpsError,
  PolicyVerdict,
  type PolicyChecker,
  type TraceEvent,
  type TrialView,
} from '../../src/core/index.ts'
import { callableRunner } from '../../src/agents/index.ts'
import { redactorFromEnv } from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { costCeiling, secretLeak, toolAccess } from '../../src/policy/index.ts'
import { baseOptions } from '../engine/helpers.ts'
import { ev, trace, viewOf } from '../evaluators/trace-fixture.ts'

async function check(checker: PolicyChecker, view: TrialView) {
  const v = await checker.check(view)
  // What a checker returns must be a valid verdict once the engine stamps the checker id.
  PolicyVerdict.parse({ ...v, checkerId: checker.id })
  return v
}

function expectConfigError(run: () => unknown) {
  try {
    run()
    expect.unreachable()
  } catch (e) {
    expect(isAgentEvalOpsError(e, 'CONFIG_INVALID')).toBe(true)
  }
}

describe('costCeiling', () => {
  const spend = (...costs: number[]) =>
    viewOf(trace(...costs.map((costUsd) => ev.model({ costUsd })), ev.answer('x')))

  it('passes under the ceiling with no findings, and at exactly the ceiling despite float error', async () => {
    const checker = costCeiling({ maxUsd: 0.3 })
    expect(checker.id).toBe('cost-ceiling')
    expect(await check(checker, spend(0.1, 0.1))).toEqual({ verdict: 'PASS', findings: [] })
    expect(await check(checker, spend(0.1, 0.1, 0.1))).toEqual({ verdict: 'PASS', findings: [] })
  })

  it('fails citing the step where the cumulative cost crossed the ceiling', async () => {
    expect(await check(costCeiling({ maxUsd: 0.3 }), spend(0.2, 0.2, 0.2))).toEqual({
      verdict: 'FAIL',
      findings: [
        {
          severity: 'FAIL',
          message: 'cost crossed the $0.3000 ceiling at step 1 (total $0.6000)',
          citations: [1],
        },
      ],
    })
  })

  it('can warn instead of failing', async () => {
    const v = await check(costCeiling({ maxUsd: 0.3, verdict: 'WARN' }), spend(0.5))
    expect(v.verdict).toBe('WARN')
    expect(v.findings).toMatchObject([{ severity: 'WARN', citations: [0] }])
  })

  it("ignores the harness's own evaluator cost", async () => {
    const view = viewOf(trace(ev.model({ costUsd: 0.1 }), ev.score('judge', true, { costUsd: 1 })), {
      result: { totalCostUsd: 0.1 },
    })
    expect((await check(costCeiling({ maxUsd: 0.3 }), view)).verdict).toBe('PASS')
  })

  it('catches spend the result reports but no event carries, without a citation', async () => {
    const view = viewOf(trace(ev.answer('x')), { result: { totalCostUsd: 2 } })
    expect(await check(costCeiling({ maxUsd: 1 }), view)).toEqual({
      verdict: 'FAIL',
      findings: [
        { severity: 'FAIL', message: 'cost crossed the $1.0000 ceiling (total $2.0000)', citations: [] },
      ],
    })
  })

  it('rejects a negative or non-finite ceiling', () => {
    expectConfigError(() => costCeiling({ maxUsd: -1 }))
    expectConfigError(() => costCeiling({ maxUsd: Number.NaN }))
  })
})

describe('toolAccess', () => {
  const events = trace(
    ev.call('list_tables'), // 0
    ev.result('list_tables', ['a']), // 1
    ev.call('delete_database', { name: 'staging' }), // 2
    ev.call('shell', { cmd: 'ls' }), // 3
    ev.call('delete_database', { name: 'prod' }), // 4
    ev.answer('done'), // 5
  )

  it('passes with no findings when every call is allowed', async () => {
    const checker = toolAccess({ deny: ['drop_table'] })
    expect(checker.id).toBe('tool-access')
    expect(await check(checker, viewOf(events))).toEqual({ verdict: 'PASS', findings: [] })
  })

  it('fails with one finding per call to a denied tool, citing its step', async () => {
    expect(await check(toolAccess({ deny: ['delete_database'] }), viewOf(events))).toEqual({
      verdict: 'FAIL',
      findings: [
        { severity: 'FAIL', message: 'tool "delete_database" is denied; called at step 2', citations: [2] },
        { severity: 'FAIL', message: 'tool "delete_database" is denied; called at step 4', citations: [4] },
      ],
    })
  })

  it('fails calls outside the allow list; deny wins over allow', async () => {
    const v = await check(
      toolAccess({ allow: ['list_tables', 'delete_database'], deny: ['delete_database'] }),
      viewOf(events),
    )
    expect(v.verdict).toBe('FAIL')
    expect(v.findings.map((f) => f.citations)).toEqual([[2], [3], [4]])
    expect(v.findings[1]!.message).toBe(
      'tool "shell" is not in the allow list (list_tables, delete_database); called at step 3',
    )
    expect(v.findings[0]!.message).toContain('is denied')
  })

  it('an empty allow list forbids every tool', async () => {
    expect((await check(toolAccess({ allow: [] }), viewOf(events))).findings).toHaveLength(4)
  })

  it('rejects a checker with neither list', () => {
    expectConfigError(() => toolAccess({}))
  })
})

describe('secretLeak', () => {
  const view = (events: { kind: TraceEvent['kind']; payload: object }[]): TrialView =>
    ({
      task: {},
      result: null,
      env: {},
      events: events.map((e, step) => ({ ...e, step })) as unknown as TraceEvent[],
    }) as unknown as TrialView

  it('reports each agent event that carried a redacted secret, citing its step', async () => {
    const verdict = await secretLeak().check(
      view([
        { kind: 'agent.plan', payload: { text: 'fine' } },
        { kind: 'agent.tool_call', payload: { tool: 'http', args: { key: '[REDACTED:API_KEY]' } } },
        {
          kind: 'agent.final_answer',
          payload: { answer: '[REDACTED:API_KEY] and [REDACTED:AWS_ACCESS_KEY_ID]' },
        },
        { kind: 'evaluator.score', payload: { explanation: 'got [REDACTED:API_KEY]' } },
      ]),
    )
    expect(verdict.verdict).toBe('FAIL')
    expect(verdict.findings).toEqual([
      {
        severity: 'FAIL',
        message: 'agent.tool_call at step 1 carried API_KEY (redacted in the trace)',
        citations: [1],
      },
      {
        severity: 'FAIL',
        message: 'agent.final_answer at step 2 carried API_KEY, AWS_ACCESS_KEY_ID (redacted in the trace)',
        citations: [2],
      },
    ])
  })

  it('passes a clean trace, and warns instead when asked', async () => {
    expect((await secretLeak().check(view([{ kind: 'agent.plan', payload: { text: 'x' } }]))).verdict).toBe(
      'PASS',
    )
    const warned = await secretLeak({ verdict: 'WARN' }).check(
      view([{ kind: 'agent.plan', payload: { text: '[REDACTED:X_TOKEN]' } }]),
    )
    expect(warned.verdict).toBe('WARN')
  })

  it('reports a secret the redactor replaced in an object key or a number of a real trial', async () => {
    const token = 'tok-keyed-9d4e2a7c61f0'
    const redactor = redactorFromEnv({
      LOOKUP_TOKEN: token,
      APP_PIN: '4821',
      AGENTEVALOPS_SECRETS: 'APP_PIN',
    })
    const run = await runTrial(
      baseOptions({
        redactor,
        policy: [secretLeak()],
        runner: callableRunner(async (_input, ctx) => {
          await ctx.toolCall('lookup', { [token]: 1 }, () => 'ok')
          await ctx.toolCall('unlock', { pin: 4821 }, () => 'ok')
          return 'done'
        }),
      }),
    )
    const leak = run.record.verdicts.find((v) => v.checkerId === 'secret-leak')!
    expect(leak.verdict).toBe('FAIL')
    expect(leak.findings.map((f) => [f.citations, f.message])).toEqual([
      [[0], 'agent.tool_call at step 0 carried LOOKUP_TOKEN (redacted in the trace)'],
      [[2], 'agent.tool_call at step 2 carried APP_PIN (redacted in the trace)'],
    ])
    expect(JSON.stringify(run.events)).not.toContain(token)
    expect(run.events[2]!.payload).toEqual({
      tool: 'unlock',
      args: { pin: '[REDACTED:APP_PIN]' },
      callId: 'call_2',
    })
  })
})
