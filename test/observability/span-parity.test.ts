// The direct OTLP JSON writer against the path it replaced: the same plans handed to OpenTelemetry's SDK and
// serialised by its JSON serializer (sdk-reference.ts). For real trials run by the engine, the lines must be equal
// byte for byte when both draw their ids from the same generator, and equal up to ids when both are random.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { mockRunner } from '../../src/agents/index.ts'
import { TOY_FORBIDDEN_TOOLS, TOY_TASK_IDS, toyBenchmark, toyScripts } from '../../src/benchmarks/index.ts'
import type { TraceEvent, TrialRecord } from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { matchesExpected } from '../../src/evaluators/index.ts'
import {
  buildRunSpanLines,
  parseOtlpLines,
  RunSpanWriter,
  type RunSpansInput,
} from '../../src/observability/index.ts'
import { toolAccess } from '../../src/policy/index.ts'
import { MemoryTraceStore } from '../../src/stores/index.ts'
import { makeMetadata, makeSummary, RUN_ID } from '../bundles/fixtures.ts'
import { FAKE_KEY, timelineEvents, timelineTrial, withTiming } from './helpers.ts'
import { buildRunSpans as sdkRunSpans, spansToOtlpLines } from './sdk-reference.ts'
import { countingIds, normaliseIds } from './span-ids.ts'

const TASKS = [
  TOY_TASK_IDS.exact,
  TOY_TASK_IDS.contains,
  TOY_TASK_IDS.json,
  TOY_TASK_IDS.multiStep,
  TOY_TASK_IDS.singleTool,
  TOY_TASK_IDS.wrongAnswer,
  TOY_TASK_IDS.agentError,
  TOY_TASK_IDS.toolLoop,
  TOY_TASK_IDS.forbiddenTool,
  TOY_TASK_IDS.costCeiling,
  TOY_TASK_IDS.tokenLimit,
]

/** Toy tasks × 2 trials through the engine and the scripted runner, with prepare, grading and teardown. */
async function realRun(): Promise<{ trials: TrialRecord[]; events: TraceEvent[] }> {
  const bench = toyBenchmark()
  const [tasks, info] = await Promise.all([bench.listTasks({ id: TASKS }), bench.info()])
  const runner = mockRunner({ scripts: toyScripts })
  const runs = await Promise.all(
    tasks.flatMap((task) =>
      [0, 1].map((trial) =>
        runTrial({
          runId: RUN_ID,
          benchmark: info,
          task,
          trial,
          runner,
          prepare: () => ({}),
          grade: () => ({
            passed: trial === 0,
            score: trial === 0 ? 1 : 0,
            explanation: `graded ${FAKE_KEY}`,
          }),
          teardown: () => {},
          evaluators: [matchesExpected()],
          policy: [toolAccess({ deny: TOY_FORBIDDEN_TOOLS })],
          limits: { maxTurns: 8 },
          traceStore: new MemoryTraceStore(),
        }),
      ),
    ),
  )
  // As the reporter receives them: plain JSON.
  const trials = runs.map((r) => JSON.parse(JSON.stringify(r.record)) as TrialRecord)
  return { trials, events: runs.flatMap((r) => r.events) }
}

function inputOf(trials: TrialRecord[], events: TraceEvent[], overrides: Partial<RunSpansInput> = {}) {
  return {
    metadata: makeMetadata(trials),
    trials,
    events,
    summary: makeSummary(trials),
    env: {},
    ...overrides,
  } satisfies RunSpansInput
}

/** The lines the SDK path makes for the same input, ids from `ids` when given. */
function sdkLines(input: RunSpansInput, ids?: ReturnType<typeof countingIds>): string[] {
  return spansToOtlpLines(sdkRunSpans({ ...input, ...(ids ? { idGenerator: ids } : {}) }))
}

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('spans written directly as OTLP JSON', () => {
  it('equal, byte for byte, what the OpenTelemetry SDK wrote for a real run', async () => {
    const { trials, events } = await realRun()
    expect(trials.map((t) => t.outcome)).toEqual(expect.arrayContaining(['passed', 'failed', 'agent_error']))
    expect(events.some((e) => e.kind === 'agent.tool_call')).toBe(true)
    const input = inputOf(trials, events, {
      stages: {
        score: { startedAt: new Date().toISOString(), durationMs: 1.2345678 },
        report: { startedAt: new Date().toISOString(), durationMs: 3.5 },
      },
    })

    const direct = buildRunSpanLines({ ...input, ids: countingIds() })
    const reference = sdkLines(input, countingIds())
    expect(direct).toHaveLength(1 + trials.length)
    expect(direct).toEqual(reference)
    // Not a vacuous equality: the run's grading, prepare and teardown spans are there.
    const text = direct.join('\n')
    for (const name of [
      'benchmark.prepare',
      'benchmark.grade',
      'benchmark.teardown',
      'execute_tool ',
      'chat ',
    ]) {
      expect(text).toContain(`"name":"${name}`)
    }
    expect(() => parseOtlpLines(text)).not.toThrow()
  })

  it('equal the SDK’s with content captured, secrets redacted, an environment resource and judge calls', () => {
    const trial = withTiming(timelineTrial(), {
      startedAt: '2025-01-02T03:04:05.000Z',
      phases: [
        { name: 'prepare', startMs: 0, durationMs: 0.3337 },
        { name: 'agent', startMs: 0.4, durationMs: 720.123456 },
        { name: 'evaluators', startMs: 721, durationMs: 180.5 },
        { name: 'policy', startMs: 902, durationMs: 3 },
        { name: 'teardown', startMs: 906, durationMs: 1 },
      ],
    })
    const events = timelineEvents(trial)
    const judgeCall = {
      ...events[8]!,
      step: 99,
      kind: 'evaluator.model_call',
      payload: { evaluatorId: 'exact-match', model: 'judge', attempt: 2, status: 'malformed', latencyMs: 60 },
    } as TraceEvent
    const input = inputOf([trial], [...events, judgeCall], {
      captureContent: true,
      env: {
        OTEL_SERVICE_NAME: 'nightly',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci,team=evals%20core',
        ANTHROPIC_API_KEY: FAKE_KEY,
      },
    })
    const direct = buildRunSpanLines({ ...input, ids: countingIds() })
    expect(direct).toEqual(sdkLines(input, countingIds()))
    expect(direct.join('\n')).toContain('gen_ai.tool.call.arguments')
    expect(direct.join('\n')).not.toContain(FAKE_KEY)
  })

  it('equal the SDK’s up to their random ids, and streamed per trial make the same lines with the run line last', async () => {
    const { trials, events } = await realRun()
    const input = inputOf(trials, events)
    const direct = buildRunSpanLines(input)
    expect(normaliseIds(direct)).toEqual(normaliseIds(sdkLines(input)))
    const ids = direct.flatMap((line) => [...line.matchAll(/"spanId":"([0-9a-f]{16})"/g)].map((m) => m[1]))
    expect(new Set(ids).size).toBe(ids.length)

    const writer = new RunSpanWriter({ startedAt: input.metadata.startedAt, env: {}, ids: countingIds() })
    const streamed = trials.map((trial) =>
      writer.trialSpanLine(
        trial,
        events.filter((e) => e.taskId === trial.taskId && e.trial === trial.trial).reverse(),
      ),
    )
    streamed.push(writer.runSpanLine(input.metadata, input.summary))
    const batch = buildRunSpanLines({ ...input, ids: countingIds() })
    expect(streamed).toEqual([...batch.slice(1), batch[0]])
  })

  it('apply the span limits of the environment as the SDK does', async () => {
    // The SDK reads its limits from process.env; the direct writer from the env it is given (process.env here).
    vi.stubEnv('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', '6')
    vi.stubEnv('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT', '9')
    vi.stubEnv('OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT', '2')
    const { trials, events } = await realRun()
    const input = inputOf(trials, events, { env: process.env })
    const direct = buildRunSpanLines({ ...input, ids: countingIds() })
    expect(direct).toEqual(sdkLines(input, countingIds()))
    expect(direct.join('\n')).toMatch(/"droppedAttributesCount":[1-9]/)
  })
})
