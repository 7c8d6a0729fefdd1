import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { hrTimeToMilliseconds } from '@opentelemetry/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createRedactor, sdkVersion, type TraceEvent, type TrialRecord } from '../../src/core/index.ts'
import { captureContentFromEnv, type RunSpansInput } from '../../src/observability/index.ts'
import { FIXTURE_BENCHMARK, makeEvents, makeMetadata, makeSummary, makeTrials } from '../bundles/fixtures.ts'
import { buildRunSpans, type DecodedSpan } from './decoded-spans.ts'
import {
  at,
  byName,
  childrenOf,
  FAKE_KEY,
  ms,
  one,
  parentOf,
  T0,
  timelineEvents,
  timelineTrial,
  withTiming,
} from './helpers.ts'

afterEach(() => {
  vi.unstubAllEnvs()
})

/** The fixture run (3 tasks × 2 trials) with its events; no environment leaks in. */
function fixtureInput(overrides: Partial<RunSpansInput> = {}): RunSpansInput {
  const trials = makeTrials()
  return {
    metadata: makeMetadata(trials),
    trials,
    events: trials.flatMap(makeEvents),
    summary: makeSummary(trials),
    env: {},
    ...overrides,
  }
}

function timelineInput(trial: TrialRecord, overrides: Partial<RunSpansInput> = {}): RunSpansInput {
  return {
    metadata: makeMetadata([trial]),
    trials: [trial],
    events: timelineEvents(trial),
    summary: makeSummary([trial]),
    env: {},
    ...overrides,
  }
}

const allText = (spans: readonly DecodedSpan[]) =>
  JSON.stringify(spans.map((s) => ({ a: s.attributes, e: s.events, st: s.status })))

describe('buildRunSpans: hierarchy', () => {
  it('puts every trial under one eval.run, with the agent, its calls, the evaluators and policy under each task', () => {
    const input = fixtureInput()
    const spans = buildRunSpans(input)
    const root = one(spans, 'eval.run')
    expect(root.parentSpanContext).toBeUndefined()
    expect(spans[0]).toBe(root)
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1)

    const tasks = byName(spans, 'eval.task')
    expect(tasks).toHaveLength(6)
    expect(childrenOf(spans, root).map((s) => s.name)).toEqual([
      ...tasks.map(() => 'eval.task'),
      'eval.score',
      'eval.report',
    ])
    for (const [i, task] of tasks.entries()) {
      const trial = input.trials[i]!
      expect(task.attributes).toMatchObject({
        'agentevalops.benchmark.id': 'toy',
        'agentevalops.task.id': trial.taskId,
        'agentevalops.trial': trial.trial,
        'agentevalops.outcome': trial.outcome,
        'agentevalops.passed': trial.passed,
        'agentevalops.usage.cost_usd': 0.0125,
        'agentevalops.usage.tokens': 120,
        'agentevalops.runner.name': 'mock-scripted',
        'agentevalops.task.label.category': trial.labels['category'],
      })
      expect(childrenOf(spans, task).map((s) => s.name)).toEqual([
        'invoke_agent mock-scripted',
        'eval.evaluator exact-match',
        'eval.policy tool-policy',
      ])
      const agent = childrenOf(spans, task)[0]!
      expect(childrenOf(spans, agent).map((s) => s.name)).toEqual(['chat mock', 'execute_tool calc'])
    }
    expect(root.attributes).toMatchObject({
      'agentevalops.run.id': input.metadata.runId,
      'agentevalops.run.status': 'complete',
      'agentevalops.run.trial_count': 6,
      'agentevalops.run.pass_rate': input.summary!.headline.primary.rate!,
      'agentevalops.run.benchmarks': ['toy'],
      'agentevalops.label.suite': 'fixture',
    })
    expect(root.attributes['agentevalops.run.pass_rate']).toBeCloseTo(2 / 3)
    expect(ms(root)).toEqual({ start: 0, end: 10_000 })
  })

  it('leaves the pooled pass rate out of eval.run and eval.score when several targets ran', () => {
    const trials = makeTrials().map((t) =>
      t.taskId === 'task-0' ? { ...t, runner: { ...t.runner, name: 'other-agent' } } : t,
    )
    const spans = buildRunSpans(fixtureInput({ trials, summary: makeSummary(trials) }))
    for (const name of ['eval.run', 'eval.score']) {
      const span = spans.find((s) => s.name === name)!
      expect(span.attributes['agentevalops.run.passed_trials'], name).toBe(4)
      expect(span.attributes, name).not.toHaveProperty('agentevalops.run.pass_rate')
    }
  })

  it('follows the GenAI conventions on agent, chat and tool spans, and records evaluations as events', () => {
    const trial = timelineTrial()
    const spans = buildRunSpans(timelineInput(trial))
    const agent = one(spans, 'invoke_agent claude-agent')
    expect(agent.kind).toBe(SpanKind.INTERNAL)
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'claude-agent',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-x',
      // The failed attempt reported no tokens: only the two answered calls count.
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 15,
      'agentevalops.usage.cost_usd': 0.0125,
      'agentevalops.agent.terminated_by': 'completed',
    })

    const chats = byName(spans, 'chat claude-x')
    expect(chats).toHaveLength(3)
    for (const chat of chats) {
      expect(parentOf(spans, chat)).toBe(agent)
      expect(chat.kind).toBe(SpanKind.CLIENT)
      expect(chat.attributes['gen_ai.operation.name']).toBe('chat')
      expect(chat.attributes['gen_ai.request.model']).toBe('claude-x')
    }
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 50,
      'gen_ai.usage.output_tokens': 10,
      'gen_ai.usage.cache_read.input_tokens': 7,
      'gen_ai.response.finish_reasons': ['tool_use'],
      'agentevalops.usage.cost_usd': 0.006,
      'agentevalops.step': 1,
    })
    expect(chats[0]!.status.code).toBe(SpanStatusCode.UNSET)
    expect(chats[1]!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'overloaded' })
    expect(chats[1]!.attributes['error.type']).toBe('529')

    const tool = one(spans, 'execute_tool calc')
    expect(parentOf(spans, tool)).toBe(agent)
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'calc',
      'gen_ai.tool.call.id': 'c1',
    })

    const grade = one(spans, 'benchmark.grade')
    const evaluator = one(spans, 'eval.evaluator exact-match')
    for (const [span, id] of [
      [grade, 'toy-grade'],
      [evaluator, 'exact-match'],
    ] as const) {
      expect(parentOf(spans, span)?.name).toBe('eval.task')
      expect(span.events).toHaveLength(1)
      expect(span.events[0]!.name).toBe('gen_ai.evaluation.result')
      expect(span.events[0]!.attributes).toMatchObject({
        'gen_ai.evaluation.name': id,
        'gen_ai.evaluation.score.value': 1,
        'gen_ai.evaluation.score.label': 'pass',
      })
    }
    expect(evaluator.events[0]!.attributes['gen_ai.evaluation.explanation']).toBe('exact match')
  })

  it('labels a failed score fail, and marks errored evaluators, tools and agents as errors', () => {
    const base = timelineTrial()
    const trial: TrialRecord = {
      ...base,
      outcome: 'infra_failure',
      passed: false,
      result: { ...base.result!, error: 'runner crashed', terminatedBy: 'agent_error' },
      scores: [
        { ...base.scores[1]!, score: 0, passed: false, explanation: 'expected "4", got "5"' },
        {
          ...base.scores[1]!,
          evaluatorId: 'judge',
          score: 0,
          passed: false,
          error: 'judge model kept failing',
        },
      ],
    }
    const events = timelineEvents(trial).map((e) =>
      e.kind === 'agent.tool_result' ? { ...e, payload: { ...e.payload, isError: true } } : e,
    )
    const spans = buildRunSpans(timelineInput(trial, { events }))
    const failed = one(spans, 'eval.evaluator exact-match')
    expect(failed.events[0]!.attributes).toMatchObject({
      'gen_ai.evaluation.score.value': 0,
      'gen_ai.evaluation.score.label': 'fail',
      'gen_ai.evaluation.explanation': 'expected "4", got "5"',
    })
    expect(failed.status.code).toBe(SpanStatusCode.UNSET)
    expect(one(spans, 'eval.evaluator judge').status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'judge model kept failing',
    })
    expect(one(spans, 'execute_tool calc').status.code).toBe(SpanStatusCode.ERROR)
    expect(one(spans, 'execute_tool calc').attributes['error.type']).toBe('tool_error')
    const agent = one(spans, 'invoke_agent claude-agent')
    expect(agent.status).toEqual({ code: SpanStatusCode.ERROR, message: 'runner crashed' })
    expect(agent.attributes['error.type']).toBe('agent_error')
    expect(one(spans, 'eval.task').status.code).toBe(SpanStatusCode.ERROR)
  })

  it('gives a judge model call its own chat span under its evaluator', () => {
    const trial = timelineTrial()
    const events = timelineEvents(trial)
    const judgeCall = {
      ...events[8]!,
      step: 99,
      ts: at(880),
      kind: 'evaluator.model_call',
      payload: {
        evaluatorId: 'exact-match',
        model: 'judge-model',
        attempt: 1,
        status: 'ok',
        latencyMs: 60,
        inputTokens: 9,
      },
    } as TraceEvent
    const spans = buildRunSpans(timelineInput(trial, { events: [...events, judgeCall] }))
    const call = one(spans, 'chat judge-model')
    expect(parentOf(spans, call)?.name).toBe('eval.evaluator exact-match')
    expect(ms(call)).toEqual({ start: 820, end: 880 })
    expect(call.attributes['gen_ai.usage.input_tokens']).toBe(9)
  })

  it('keeps each benchmark’s events to its own trials when two benchmarks share task ids', () => {
    const weak = { ...FIXTURE_BENCHMARK, id: 'toy@weak' }
    const trials = makeTrials({ benchmarks: [FIXTURE_BENCHMARK, weak] })
    const spans = buildRunSpans(
      fixtureInput({ trials, metadata: makeMetadata(trials), events: trials.flatMap(makeEvents) }),
    )
    const tasks = byName(spans, 'eval.task')
    expect(tasks).toHaveLength(12)
    for (const task of tasks) {
      const agent = childrenOf(spans, task).find((s) => s.name.startsWith('invoke_agent'))!
      expect(childrenOf(spans, agent).map((s) => s.name)).toEqual(['chat mock', 'execute_tool calc'])
    }
  })

  it('places events that name no benchmark (formats 1 and 2) with their task', () => {
    const trials = makeTrials({ tasks: ['task-0'], trials: 1 })
    const events = makeEvents(trials[0]!).map(({ benchmark: _b, ...e }) => e as TraceEvent)
    const spans = buildRunSpans(fixtureInput({ trials, metadata: makeMetadata(trials), events }))
    expect(byName(spans, 'execute_tool calc')).toHaveLength(1)
  })

  it('pairs tool calls without ids with their results by tool, in order', () => {
    const trial = timelineTrial()
    const base = timelineEvents(trial)[0]!
    const ev = (step: number, offset: number, kind: string, payload: object) =>
      ({ ...base, step, ts: at(offset), kind, payload }) as TraceEvent
    const events = [
      ev(0, 10, 'agent.tool_call', { tool: 'read', args: {} }),
      ev(1, 20, 'agent.tool_call', { tool: 'write', args: {} }),
      ev(2, 50, 'agent.tool_result', { tool: 'write', result: 'ok' }),
      ev(3, 80, 'agent.tool_result', { tool: 'read', result: 'text' }),
      ev(4, 90, 'agent.tool_call', { tool: 'read', args: {} }),
    ]
    const spans = buildRunSpans(timelineInput(trial, { events }))
    expect(ms(one(spans, 'execute_tool write'))).toEqual({ start: 20, end: 50 })
    const reads = byName(spans, 'execute_tool read')
    expect(reads.map(ms)).toEqual([
      { start: 10, end: 80 },
      // Never answered: a point in time.
      { start: 90, end: 90 },
    ])
  })
})

describe('buildRunSpans: times', () => {
  it('derives times from trace events when the record has no timing', () => {
    const spans = buildRunSpans(timelineInput(timelineTrial()))
    const chats = byName(spans, 'chat claude-x').map(ms)
    // latencyMs before the event; without one, from the step before.
    expect(chats).toEqual([
      { start: 50, end: 300 },
      { start: 360, end: 400 },
      { start: 400, end: 700 },
    ])
    expect(ms(one(spans, 'execute_tool calc'))).toEqual({ start: 310, end: 360 })
    expect(ms(one(spans, 'invoke_agent claude-agent'))).toEqual({ start: 0, end: 720 })
    // Scores recorded at +900 together: the slowest (100 ms) started them all at +800.
    expect(ms(one(spans, 'benchmark.grade'))).toEqual({ start: 800, end: 850 })
    expect(ms(one(spans, 'eval.evaluator exact-match'))).toEqual({ start: 800, end: 900 })
    expect(ms(one(spans, 'eval.policy tool-policy'))).toEqual({ start: 900, end: 905 })
    expect(ms(one(spans, 'eval.task'))).toEqual({ start: 0, end: 905 })
    // Prepare and teardown leave no event: without timing there is nothing to draw them from.
    expect(byName(spans, 'benchmark.prepare')).toEqual([])
    expect(byName(spans, 'benchmark.teardown')).toEqual([])
    expect(one(spans, 'eval.task').attributes['agentevalops.time_source']).toBe('events')
    const evaluation = one(spans, 'eval.evaluator exact-match').events[0]!
    expect(Math.round(hrTimeToMilliseconds(evaluation.time) - T0)).toBe(900)
  })

  it('uses the measured phases when the record has timing', () => {
    const trial = withTiming(timelineTrial(), {
      startedAt: at(-100),
      phases: [
        { name: 'prepare', startMs: 0, durationMs: 90 },
        { name: 'agent', startMs: 95, durationMs: 730 },
        { name: 'evaluators', startMs: 900, durationMs: 100 },
        { name: 'policy', startMs: 1000, durationMs: 5 },
        { name: 'teardown', startMs: 1006, durationMs: 4.5 },
      ],
    })
    const spans = buildRunSpans(timelineInput(trial))
    const task = one(spans, 'eval.task')
    expect(childrenOf(spans, task).map((s) => s.name)).toEqual([
      'benchmark.prepare',
      'invoke_agent claude-agent',
      'benchmark.grade',
      'eval.evaluator exact-match',
      'eval.policy tool-policy',
      'benchmark.teardown',
    ])
    expect(ms(one(spans, 'benchmark.prepare'))).toEqual({ start: -100, end: -10 })
    expect(ms(one(spans, 'invoke_agent claude-agent'))).toEqual({ start: -5, end: 725 })
    expect(ms(one(spans, 'benchmark.grade'))).toEqual({ start: 800, end: 850 })
    expect(ms(one(spans, 'eval.evaluator exact-match'))).toEqual({ start: 800, end: 900 })
    expect(ms(one(spans, 'eval.policy tool-policy'))).toEqual({ start: 900, end: 905 })
    const teardown = one(spans, 'benchmark.teardown')
    expect(hrTimeToMilliseconds(teardown.endTime) - T0).toBeCloseTo(910.5, 3)
    expect(ms(task).start).toBe(-100)
    expect(hrTimeToMilliseconds(task.endTime) - T0).toBeCloseTo(910.5, 3)
    expect(task.attributes['agentevalops.time_source']).toBe('timing')
    // The model calls inside the agent still come from their events.
    expect(byName(spans, 'chat claude-x').map(ms)[0]).toEqual({ start: 50, end: 300 })
  })

  it('places the grade span by a measured grade phase when the timing has one', () => {
    const trial = withTiming(timelineTrial(), {
      startedAt: at(0),
      phases: [
        { name: 'grade', startMs: 730, durationMs: 40 },
        { name: 'evaluators', startMs: 800, durationMs: 100 },
      ],
    })
    const spans = buildRunSpans(timelineInput(trial))
    expect(ms(one(spans, 'benchmark.grade'))).toEqual({ start: 730, end: 770 })
    expect(ms(one(spans, 'eval.evaluator exact-match'))).toEqual({ start: 800, end: 900 })
  })

  it('never ends a span before it starts, whatever the timestamps say', () => {
    const trial = timelineTrial()
    // Events out of time order (a clock step back), and a latency longer than the whole trial.
    const events = timelineEvents(trial).map((e, i) => ({ ...e, ts: at(1000 - i * 100) }))
    events[1] = { ...events[1]!, payload: { ...events[1]!.payload, latencyMs: 1e7 } } as TraceEvent
    const spans = buildRunSpans(timelineInput(trial, { events }))
    expect(spans.length).toBeGreaterThan(8)
    for (const span of spans) {
      expect(hrTimeToMilliseconds(span.endTime), span.name).toBeGreaterThanOrEqual(
        hrTimeToMilliseconds(span.startTime),
      )
      for (const event of span.events) {
        expect(hrTimeToMilliseconds(event.time), span.name).toBeGreaterThanOrEqual(
          hrTimeToMilliseconds(span.startTime),
        )
      }
    }
  })

  it('still draws an eval.task for a trial with no events and no timing', () => {
    const base = makeTrials({ tasks: ['task-0'], trials: 1 })[0]!
    const trial: TrialRecord = {
      ...base,
      result: null,
      outcome: 'infra_failure',
      passed: false,
      scores: [],
      verdicts: [],
    }
    const spans = buildRunSpans(
      fixtureInput({ trials: [trial], metadata: makeMetadata([trial]), events: [] }),
    )
    const task = one(spans, 'eval.task')
    expect(parentOf(spans, task)?.name).toBe('eval.run')
    expect(childrenOf(spans, task)).toEqual([])
    expect(ms(task)).toEqual({ start: 0, end: 0 })
    expect(task.attributes['agentevalops.outcome']).toBe('infra_failure')
  })

  it('takes measured run stages for eval.score and eval.report, and puts them at the end without', () => {
    const input = fixtureInput()
    const estimated = buildRunSpans(input)
    expect(ms(one(estimated, 'eval.report'))).toEqual({ start: 10_000, end: 10_000 })
    expect(one(estimated, 'eval.score').attributes['agentevalops.time_source']).toBe('estimated')

    const measured = buildRunSpans({
      ...input,
      stages: {
        score: { startedAt: at(9_000), durationMs: 20 },
        report: { startedAt: at(10_050), durationMs: 30 },
      },
    })
    expect(ms(one(measured, 'eval.score'))).toEqual({ start: 9_000, end: 9_020 })
    expect(ms(one(measured, 'eval.report'))).toEqual({ start: 10_050, end: 10_080 })
    // The run span covers a report rendered after finishedAt.
    expect(ms(one(measured, 'eval.run'))).toEqual({ start: 0, end: 10_080 })
  })
})

describe('buildRunSpans: content', () => {
  const CONTENT_KEYS = [
    'gen_ai.input.messages',
    'gen_ai.output.messages',
    'gen_ai.tool.call.arguments',
    'gen_ai.tool.call.result',
  ]

  it('writes no message content by default', () => {
    const spans = buildRunSpans(timelineInput(timelineTrial()))
    for (const span of spans) {
      for (const key of CONTENT_KEYS) expect(span.attributes[key], `${span.name} ${key}`).toBeUndefined()
    }
    expect(allText(spans)).not.toContain('let me compute')
    expect(allText(spans)).not.toContain('2+2')
  })

  it('writes content when opted in, after redacting secrets', () => {
    const spans = buildRunSpans(
      timelineInput(timelineTrial(), { captureContent: true, env: { MY_SERVICE_TOKEN: 'hunter2-hunter2' } }),
    )
    const tool = one(spans, 'execute_tool calc')
    const args = JSON.parse(tool.attributes['gen_ai.tool.call.arguments'] as string) as Record<
      string,
      unknown
    >
    expect(args).toEqual({ expr: '2+2', token: '[REDACTED:ANTHROPIC_KEY]' })
    expect(tool.attributes['gen_ai.tool.call.result']).toBe('4')
    expect(
      JSON.parse(byName(spans, 'chat claude-x')[0]!.attributes['gen_ai.output.messages'] as string),
    ).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'let me compute' }], finish_reason: 'tool_use' },
    ])
    const agent = one(spans, 'invoke_agent claude-agent')
    expect(JSON.parse(agent.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: '4' }], finish_reason: 'stop' },
    ])
    expect(allText(spans)).not.toContain(FAKE_KEY)
  })

  it('redacts the secrets of the environment, or of the redactor it is given', () => {
    const trial = timelineTrial()
    const events = timelineEvents(trial).map((e) =>
      e.kind === 'agent.tool_result'
        ? { ...e, payload: { ...e.payload, result: 'db password hunter2-hunter2' } }
        : e,
    )
    const fromEnv = buildRunSpans(
      timelineInput(trial, { events, captureContent: true, env: { DB_PASSWORD: 'hunter2-hunter2' } }),
    )
    expect(one(fromEnv, 'execute_tool calc').attributes['gen_ai.tool.call.result']).toBe(
      'db password [REDACTED:DB_PASSWORD]',
    )
    const given = buildRunSpans(
      timelineInput(trial, {
        events,
        captureContent: true,
        redactor: createRedactor([['hunter2-hunter2', '[X]']]),
      }),
    )
    expect(one(given, 'execute_tool calc').attributes['gen_ai.tool.call.result']).toBe('db password [X]')
  })

  it('reads the opt-in from OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', () => {
    const key = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT'
    expect(captureContentFromEnv({})).toBe(false)
    expect(captureContentFromEnv({ [key]: 'true' })).toBe(true)
    expect(captureContentFromEnv({ [key]: ' TRUE ' })).toBe(true)
    expect(captureContentFromEnv({ [key]: '1' })).toBe(false)
    expect(captureContentFromEnv({ [key]: 'false' })).toBe(false)
  })
})

describe('buildRunSpans: resource', () => {
  it('names the service from OTEL_SERVICE_NAME (default agentevalops) with our version', () => {
    const plain = buildRunSpans(fixtureInput())[0]!
    expect(plain.resource.attributes['service.name']).toBe('agentevalops')
    expect(plain.resource.attributes['service.version']).toBe(sdkVersion())
    expect(plain.instrumentationScope.name).toBe('agentevalops')
    const named = buildRunSpans(
      fixtureInput({
        env: { OTEL_SERVICE_NAME: 'nightly-evals', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci' },
      }),
    )[0]!
    expect(named.resource.attributes['service.name']).toBe('nightly-evals')
    expect(named.resource.attributes['deployment.environment']).toBe('ci')
  })

  it('keeps every span whatever sampler the environment configures for live tracing', () => {
    vi.stubEnv('OTEL_TRACES_SAMPLER', 'always_off')
    const spans = buildRunSpans(fixtureInput())
    expect(byName(spans, 'eval.task')).toHaveLength(6)
  })
})
