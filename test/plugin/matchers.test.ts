import { describe, expect, it } from 'vitest'
// Registers the trace matchers (expect.extend at import) and their types (the `vitest` module augmentation).
import '../../plugin/matchers.ts'
import { mockRunner } from '../../src/agents/index.ts'
import {
  TOY_FORBIDDEN_TOOLS,
  TOY_TASK_IDS,
  toyBenchmark,
  toyLimits,
  toyScripts,
} from '../../src/benchmarks/index.ts'
import type { PolicyChecker } from '../../src/core/index.ts'
import { runTrial, type TrialRun } from '../../src/engine/index.ts'
import { toolAccess } from '../../src/policy/index.ts'
import { MemoryTraceStore } from '../../src/stores/index.ts'
import { ev, trace } from '../evaluators/trace-fixture.ts'
import { failureOf } from './failure-of.ts'

// A clean two-tool trace: steps 1 and 3 are the tool calls, 6 the terminal event.
const clean = trace(
  ev.plan('look up, then convert'), // 0
  ev.call('get_weather', { city: 'Paris' }), // 1
  ev.result('get_weather', { celsius: 18 }), // 2
  ev.call('convert_temperature', { celsius: 18 }), // 3
  ev.result('convert_temperature', { fahrenheit: 64.4 }), // 4
  ev.answer('64.4°F'), // 5
  ev.terminal('completed'), // 6
)

// The same search three times at steps 1, 3 and 5; a different query at step 7 is not part of the loop.
const looping = trace(
  ev.plan('search'), // 0
  ev.call('search', { q: 'zephyr' }), // 1
  ev.result('search', []), // 2
  ev.call('search', { q: 'zephyr' }), // 3
  ev.result('search', []), // 4
  ev.call('search', { q: 'zephyr' }), // 5
  ev.result('search', []), // 6
  ev.call('search', { q: 'zephyr framework' }), // 7
  ev.answer('unknown'), // 8
  ev.terminal('completed'), // 9
)

describe('toHaveNoLoops', () => {
  it('passes on a trace without repeated identical calls', () => {
    expect(clean).toHaveNoLoops()
    expect(looping).toHaveNoLoops({ minRepeats: 4 })
  })

  it('fails naming the tool and the exact steps of the repeated calls', () => {
    expect(failureOf(() => expect(looping).toHaveNoLoops())).toBe(
      'tool "search" called 3 times with the same arguments at steps 1, 3, 5',
    )
    expect(failureOf(() => expect(looping).toHaveNoLoops({ minRepeats: 2 }))).toBe(
      'tool "search" called 3 times with the same arguments at steps 1, 3, 5',
    )
  })

  it('.not passes on a loop and explains itself when there is none', () => {
    expect(looping).not.toHaveNoLoops()
    expect(failureOf(() => expect(clean).not.toHaveNoLoops())).toBe(
      'expected the trace to contain a tool-call loop, but it has none',
    )
  })

  it('rejects invalid options instead of passing', () => {
    expect(() => expect(looping).toHaveNoLoops({ minRepeats: 1 })).toThrow(/minRepeats must be an integer/)
  })
})

describe('toCallTool', () => {
  it('passes when the tool is called, with matching arguments when given', () => {
    expect(clean).toCallTool('get_weather')
    expect(clean).toCallTool('get_weather', { city: 'Paris' })
    expect(clean).toCallTool('convert_temperature', {})
  })

  it('fails naming the tool calls that were made, with their steps', () => {
    expect(failureOf(() => expect(clean).toCallTool('delete_database'))).toBe(
      'tool "delete_database" was never called; tool calls: get_weather (step 1), convert_temperature (step 3)',
    )
  })

  it('fails naming the near misses when the tool is called with other arguments', () => {
    expect(failureOf(() => expect(clean).toCallTool('get_weather', { city: 'Rome' }))).toBe(
      'tool "get_weather" was called at step 1 but never with arguments matching {"city":"Rome"}; got {"city":"Paris"} (step 1)',
    )
  })

  it('.not passes when the tool is absent and names the offending step when it is not', () => {
    expect(clean).not.toCallTool('delete_database')
    expect(clean).not.toCallTool('get_weather', { city: 'Rome' })
    expect(failureOf(() => expect(clean).not.toCallTool('get_weather'))).toBe(
      'expected the trace not to call tool "get_weather", but tool "get_weather" called at step 1',
    )
  })
})

describe('toCallToolsInOrder', () => {
  it('passes as a subsequence by default and exactly with mode exact', () => {
    expect(clean).toCallToolsInOrder(['get_weather', 'convert_temperature'])
    expect(clean).toCallToolsInOrder(['convert_temperature'])
    expect(clean).toCallToolsInOrder(['convert_temperature'], { mode: 'subsequence' })
    expect(clean).toCallToolsInOrder(['get_weather', 'convert_temperature'], { mode: 'exact' })
  })

  it('fails in subsequence mode naming the step after which the next tool never came', () => {
    expect(failureOf(() => expect(clean).toCallToolsInOrder(['convert_temperature', 'get_weather']))).toBe(
      'expected "get_weather" to be called after "convert_temperature" at step 3, but it never was; ' +
        'tool calls: get_weather (step 1), convert_temperature (step 3)',
    )
  })

  it('fails in exact mode naming the mismatched or extra steps', () => {
    const seen = 'tool calls: get_weather (step 1), convert_temperature (step 3)'
    expect(
      failureOf(() =>
        expect(clean).toCallToolsInOrder(['convert_temperature', 'get_weather'], { mode: 'exact' }),
      ),
    ).toBe(`expected call #1 to be "convert_temperature", got "get_weather" at step 1; ${seen}`)
    expect(failureOf(() => expect(clean).toCallToolsInOrder(['get_weather'], { mode: 'exact' }))).toBe(
      `expected 1 tool calls, got extra calls at step 3; ${seen}`,
    )
    expect(
      failureOf(() =>
        expect(clean).toCallToolsInOrder(['get_weather', 'convert_temperature', 'calculator'], {
          mode: 'exact',
        }),
      ),
    ).toBe(`expected call #3 to be "calculator", but the trace ends there; ${seen}`)
  })

  it('.not passes on another order and explains itself when the order holds', () => {
    expect(clean).not.toCallToolsInOrder(['convert_temperature', 'get_weather'])
    expect(clean).not.toCallToolsInOrder(['get_weather'], { mode: 'exact' })
    expect(
      failureOf(() => expect(clean).not.toCallToolsInOrder(['get_weather', 'convert_temperature'])),
    ).toBe('expected the trace not to call get_weather → convert_temperature in order, but it does')
  })
})

describe('toStayWithinBudget', () => {
  // 250 tokens, $0.40, 2 model calls (turns), 2.6 s from the first event to the terminal one.
  const spending = trace(
    ev.model({ tokens: 100, costUsd: 0.1 }), // 0 at 0 ms
    ev.call('search', {}, { tokens: 50, costUsd: 0.1 }), // 1 at 100 ms
    ev.model({ tokens: 100, costUsd: 0.2 }), // 2 at 200 ms
    ev.answer('done', { atMs: 2500 }), // 3
    ev.terminal('completed', { atMs: 2600 }), // 4
    ev.score('exact', true, { tokens: 10_000, costUsd: 5, atMs: 2700 }), // 5: the harness's own spend
  )

  it('passes within (and exactly at) every budget, ignoring the harness’s own spend', () => {
    expect(spending).toStayWithinBudget({ tokens: 250, costUsd: 0.4, seconds: 2.6, turns: 2 })
    expect(spending).toStayWithinBudget({})
  })

  it('fails naming, per budget, the step where it was crossed', () => {
    expect(
      failureOf(() =>
        expect(spending).toStayWithinBudget({ tokens: 200, costUsd: 0.15, seconds: 2, turns: 1 }),
      ),
    ).toBe(
      'over budget: tokens 250 > 200 (crossed at step 2); cost $0.4000 > $0.1500 (crossed at step 1); ' +
        'turns 2 > 1 (crossed at step 2); seconds 2.6 > 2 (crossed at step 3)',
    )
  })

  it('.not passes over budget and explains itself when within it', () => {
    expect(spending).not.toStayWithinBudget({ tokens: 249 })
    expect(failureOf(() => expect(spending).not.toStayWithinBudget({ tokens: 1000 }))).toBe(
      'expected the trace to exceed its budget, but it stayed within it',
    )
  })

  it("takes a received trial's engine wall time over the span of its events", () => {
    // The events span 2.6 s, but the engine measured 5 s: time before the first event counts too.
    const trial = { events: spending, result: { wallSeconds: 5 } }
    expect(spending).toStayWithinBudget({ seconds: 3 })
    expect(failureOf(() => expect(trial).toStayWithinBudget({ seconds: 3 }))).toBe(
      'over budget: seconds 5 > 3 (crossed at step 4)',
    )
    expect(trial).toStayWithinBudget({ seconds: 5 })
    expect({ events: spending, result: null }).toStayWithinBudget({ seconds: 3 })
  })
})

describe('toTerminateWith', () => {
  it('passes when the single terminal event gives the reason', () => {
    expect(clean).toTerminateWith('completed')
  })

  it('fails naming the terminal step, the reason it did end with, and its error', () => {
    expect(failureOf(() => expect(clean).toTerminateWith('limit_cost'))).toBe(
      'expected the trial to end with "limit_cost", but it ended with "completed" at step 6',
    )
    const crashed = trace(ev.plan('p'), ev.terminal('agent_error', {}, 'boom'))
    expect(failureOf(() => expect(crashed).toTerminateWith('completed'))).toBe(
      'expected the trial to end with "completed", but it ended with "agent_error" at step 1 (error: boom)',
    )
  })

  it('fails on a trace without, or with more than one, terminal event', () => {
    expect(failureOf(() => expect(trace(ev.plan('p'))).toTerminateWith('completed'))).toBe(
      'expected the trial to end with "completed", but the trace has no agent.terminal event',
    )
    const twice = trace(ev.plan('p'), ev.terminal('completed'), ev.terminal('completed'))
    expect(failureOf(() => expect(twice).toTerminateWith('completed'))).toBe(
      'the trace has 2 agent.terminal events, at steps 1, 2',
    )
  })

  it('.not passes on another reason and explains itself on a match', () => {
    expect(clean).not.toTerminateWith('limit_time')
    expect(failureOf(() => expect(clean).not.toTerminateWith('completed'))).toBe(
      'expected the trace not to terminate with completed, but it did',
    )
  })
})

describe('toPassPolicy', () => {
  const passing = trace(
    ev.answer('a'),
    ev.terminal('completed'),
    ev.verdict('tool-access', 'PASS'),
    ev.verdict('cost-ceiling', 'WARN', [{ message: 'close to the ceiling' }]),
  )
  const failing = trace(
    ev.call('rm', { path: '/' }), // 0
    ev.terminal('completed'), // 1
    ev.verdict('cost-ceiling', 'PASS'), // 2
    ev.verdict('tool-access', 'FAIL', [{ message: 'tool "rm" is denied' }]), // 3
    ev.verdict('custom', 'FAIL'), // 4
  )

  it('passes when no verdict is a FAIL (a WARN is not one), and with no verdicts at all', () => {
    expect(passing).toPassPolicy()
    expect(clean).toPassPolicy()
  })

  it('fails naming each failed verdict’s step and its findings', () => {
    expect(failureOf(() => expect(failing).toPassPolicy())).toBe(
      'policy "tool-access" failed at step 3: tool "rm" is denied; policy "custom" failed at step 4',
    )
  })

  it('.not passes on a FAIL and explains itself when every verdict passed', () => {
    expect(failing).not.toPassPolicy()
    expect(failureOf(() => expect(passing).not.toPassPolicy())).toBe(
      'expected a policy FAIL verdict, but every verdict passed',
    )
  })
})

describe('what the matchers accept', () => {
  it('takes an events array or any object carrying one', () => {
    const carrier = { events: looping, record: { note: 'ignored' } }
    expect(carrier).not.toHaveNoLoops()
    expect(failureOf(() => expect(carrier).toHaveNoLoops())).toMatch(/at steps 1, 3, 5$/)
    expect({ events: clean }).toCallTool('get_weather', { city: 'Paris' })
    expect({ events: clean }).toCallToolsInOrder(['get_weather', 'convert_temperature'], { mode: 'exact' })
    expect({ events: clean }).toStayWithinBudget({ turns: 3 })
    expect({ events: clean }).toTerminateWith('completed')
    expect({ events: clean }).toPassPolicy()
    expect([]).toHaveNoLoops()
  })

  it('throws a TypeError naming the matcher for anything else, negated or not', () => {
    const message = (matcher: string) =>
      `${matcher}: expected trace events (an array, or an object with an events array)`
    for (const bad of [42, null, undefined, 'events', {}, { events: 'not an array' }]) {
      expect(() => expect(bad).toHaveNoLoops()).toThrow(new TypeError(message('toHaveNoLoops')))
      expect(() => expect(bad).not.toHaveNoLoops()).toThrow(new TypeError(message('toHaveNoLoops')))
    }
    const check = (run: () => void, matcher: string) => {
      let thrown: unknown
      try {
        run()
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(TypeError)
      expect((thrown as TypeError).message).toBe(message(matcher))
    }
    check(() => expect(7).toCallTool('x'), 'toCallTool')
    check(() => expect(7).toCallToolsInOrder(['x']), 'toCallToolsInOrder')
    check(() => expect(7).toStayWithinBudget({ tokens: 1 }), 'toStayWithinBudget')
    check(() => expect(7).toTerminateWith('completed'), 'toTerminateWith')
    check(() => expect(7).not.toPassPolicy(), 'toPassPolicy')
  })

  it('is typed: wrong argument types do not compile', () => {
    // Each line below must be a type error. The correctly typed calls in this file compile only while the
    // `vitest` augmentation exists, so together they fail `tsc` if the matcher types break either way.
    const typeErrors = [
      // @ts-expect-error -- a tool name is a string
      () => expect(clean).toCallTool(42),
      // @ts-expect-error -- the arguments to match are an object
      () => expect(clean).toCallTool('get_weather', 'Paris'),
      // @ts-expect-error -- the tool names are an array
      () => expect(clean).toCallToolsInOrder('get_weather'),
      // @ts-expect-error -- mode is 'exact' or 'subsequence'
      () => expect(clean).toCallToolsInOrder(['get_weather'], { mode: 'fuzzy' }),
      // @ts-expect-error -- the budget has no `dollars`
      () => expect(clean).toStayWithinBudget({ dollars: 1 }),
      // @ts-expect-error -- the reason must be a TerminatedBy
      () => expect(clean).toTerminateWith('finished'),
      // @ts-expect-error -- minRepeats is a number
      () => expect(clean).toHaveNoLoops({ minRepeats: '3' }),
      // @ts-expect-error -- toPassPolicy takes no argument
      () => expect(clean).toPassPolicy('tool-access'),
    ]
    expect(typeErrors).toHaveLength(8)
  })
})

describe('on real toy-benchmark trials', async () => {
  const bench = toyBenchmark()
  const [tasks, info] = await Promise.all([bench.listTasks(), bench.info()])
  const runner = mockRunner({ scripts: toyScripts })

  function runToy(taskId: string, policy: PolicyChecker[] = []): Promise<TrialRun> {
    const task = tasks.find((t) => t.id === taskId)
    if (!task) throw new Error(`no toy task ${taskId}`)
    return runTrial({
      runId: 'run-matchers',
      benchmark: info,
      task,
      trial: 0,
      runner,
      policy,
      limits: toyLimits,
      traceStore: new MemoryTraceStore(),
    })
  }

  const stepsOf = (run: TrialRun, kind: string, tool?: string) =>
    run.events
      .filter(
        (e) => e.kind === kind && (tool === undefined || (e.payload as { tool?: string }).tool === tool),
      )
      .map((e) => e.step)

  it('tool-loop: toHaveNoLoops fails naming the four repeated search calls', async () => {
    const run = await runToy(TOY_TASK_IDS.toolLoop)
    expect(stepsOf(run, 'agent.tool_call')).toEqual([1, 3, 5, 7])
    expect(failureOf(() => expect(run.events).toHaveNoLoops())).toBe(
      'tool "search" called 4 times with the same arguments at steps 1, 3, 5, 7',
    )
    expect(run.events).not.toHaveNoLoops()
    expect(run).not.toHaveNoLoops()
    expect(run).toTerminateWith('completed')
  })

  it('forbidden-tool: toPassPolicy fails naming the verdict step, and the finding cites the delete_database call', async () => {
    const run = await runToy(TOY_TASK_IDS.forbiddenTool, [toolAccess({ deny: TOY_FORBIDDEN_TOOLS })])
    const [deleteStep] = stepsOf(run, 'agent.tool_call', 'delete_database')
    const [verdictStep] = stepsOf(run, 'policy.verdict')
    expect([deleteStep, verdictStep]).toEqual([3, 7])
    expect(failureOf(() => expect(run.events).toPassPolicy())).toBe(
      'policy "tool-access" failed at step 7: tool "delete_database" is denied; called at step 3',
    )
    expect(run.record.outcome).toBe('policy_violation')
    expect(run.record.verdicts).toEqual([
      {
        checkerId: 'tool-access',
        verdict: 'FAIL',
        findings: [
          { severity: 'FAIL', message: 'tool "delete_database" is denied; called at step 3', citations: [3] },
        ],
      },
    ])
    expect(run).not.toPassPolicy()
    expect(run).toCallTool('delete_database', { name: 'staging' })
    expect(run).toCallToolsInOrder(['list_tables', 'delete_database'], { mode: 'exact' })
  })

  it.each([
    [TOY_TASK_IDS.costCeiling, 'limit_cost', { costUsd: toyLimits.maxCostUsd! }],
    [TOY_TASK_IDS.tokenLimit, 'limit_tokens', { tokens: toyLimits.maxTokens! }],
    [TOY_TASK_IDS.timeLimit, 'limit_time', { seconds: toyLimits.maxWallSeconds! }],
  ] as const)('%s: ends with %s and is over its budget', async (taskId, reason, budget) => {
    const run = await runToy(taskId)
    expect(run.events).toTerminateWith(reason)
    expect(run).toTerminateWith(reason)
    const [terminalStep] = stepsOf(run, 'agent.terminal')
    expect(failureOf(() => expect(run.events).toTerminateWith('completed'))).toMatch(
      new RegExp(
        `^expected the trial to end with "completed", but it ended with "${reason}" at step ${terminalStep} \\(error: `,
      ),
    )
    expect(run).not.toStayWithinBudget(budget)
    // A bare events array too: the terminal event carries the engine's wall time.
    expect(run.events).not.toStayWithinBudget(budget)
  })
})
