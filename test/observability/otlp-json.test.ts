import { hrTimeToNanoseconds } from '@opentelemetry/core'
import { describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../src/core/index.ts'
import {
  buildRunSpanLines,
  otlpLinesText,
  otlpSpans,
  parseOtlpLines,
  type RunSpansInput,
} from '../../src/observability/index.ts'
import { makeEvents, makeMetadata, makeSummary, makeTrials } from '../bundles/fixtures.ts'
import { buildRunSpans, spansToOtlpLines } from './sdk-reference.ts'
import { countingIds } from './span-ids.ts'

function fixtureInput(): RunSpansInput {
  const trials = makeTrials()
  return {
    metadata: makeMetadata(trials),
    trials,
    events: trials.flatMap(makeEvents),
    summary: makeSummary(trials),
    env: {},
  }
}

/** The fixture run's spans as OpenTelemetry's SDK builds them, ids counted up from 1. */
function fixtureSpans() {
  return buildRunSpans({ ...fixtureInput(), idGenerator: countingIds() })
}

/** The fixture run's lines from the direct writer, with the same ids. */
function fixtureLines(): string[] {
  return buildRunSpanLines({ ...fixtureInput(), ids: countingIds() })
}

function expectInvalid(fn: () => unknown, line: number): void {
  try {
    fn()
  } catch (e) {
    expect(isAgentEvalOpsError(e), String(e)).toBe(true)
    expect((e as { code: string }).code).toBe('BUNDLE_INVALID')
    expect((e as Error).message).toContain(`spans.jsonl:${line}`)
    return
  }
  throw new Error('expected BUNDLE_INVALID')
}

describe('buildRunSpanLines', () => {
  it('writes the run-level spans on the first line and each trial on a line of its own', () => {
    const lines = fixtureLines()
    expect(lines).toHaveLength(1 + 6)
    for (const line of lines) expect(line).not.toContain('\n')

    const requests = lines.map((line) => parseOtlpLines(line))
    const names = requests.map((r) => otlpSpans(r).map((s) => s.name))
    expect(names[0]).toEqual(['eval.run', 'eval.score', 'eval.report'])
    for (const trialNames of names.slice(1)) {
      expect(trialNames).toEqual([
        'eval.task',
        'invoke_agent mock-scripted',
        'chat mock',
        'execute_tool calc',
        'eval.evaluator exact-match',
        'eval.policy tool-policy',
      ])
    }
    // Each line is a complete ExportTraceServiceRequest: resource and scope travel with it.
    for (const request of requests) {
      const [rs] = request[0]!.resourceSpans
      expect(rs!.resource?.attributes).toContainEqual({
        key: 'service.name',
        value: { stringValue: 'agentevalops' },
      })
      expect(rs!.scopeSpans[0]!.scope?.name).toBe('agentevalops')
    }
  })

  it('holds what the OpenTelemetry SDK builds: the same spans, ids, parents, times and attributes', () => {
    const spans = fixtureSpans()
    const parsed = otlpSpans(parseOtlpLines(otlpLinesText(fixtureLines())))
    expect(parsed).toHaveLength(spans.length)
    const byId = new Map(parsed.map((s) => [s.spanId, s]))
    for (const span of spans) {
      const ctx = span.spanContext()
      const out = byId.get(ctx.spanId)!
      expect(out, span.name).toBeDefined()
      expect(out.name).toBe(span.name)
      expect(out.traceId).toBe(ctx.traceId)
      expect(out.parentSpanId).toBe(span.parentSpanContext?.spanId)
      // OTLP kinds are the API's plus one (0 is "unspecified").
      expect(out.kind).toBe(span.kind + 1)
      expect(String(out.startTimeUnixNano)).toBe(String(hrTimeToNanoseconds(span.startTime)))
      expect(String(out.endTimeUnixNano)).toBe(String(hrTimeToNanoseconds(span.endTime)))
      expect(out.attributes?.map((a) => a.key).sort()).toEqual(Object.keys(span.attributes).sort())
      expect(out.events?.map((e) => e.name)).toEqual(span.events.map((e) => e.name))
    }
    const tool = parsed.find((s) => s.name === 'execute_tool calc')!
    expect(tool.attributes).toContainEqual({ key: 'gen_ai.tool.name', value: { stringValue: 'calc' } })
    const evaluator = parsed.find((s) => s.name === 'eval.evaluator exact-match')!
    expect(evaluator.events?.[0]?.attributes).toContainEqual({
      key: 'gen_ai.evaluation.score.label',
      value: { stringValue: 'pass' },
    })
  })

  it('writes the lines the SDK’s serializer writes for the same spans', () => {
    expect(fixtureLines()).toEqual(spansToOtlpLines(fixtureSpans()))
  })
})

describe('parseOtlpLines', () => {
  const valid = fixtureLines()

  it('skips blank lines', () => {
    expect(parseOtlpLines(`\n${valid[0]}\n\n${valid[1]}\n`)).toHaveLength(2)
  })

  it('names the line that is not JSON', () => {
    expectInvalid(() => parseOtlpLines(`${valid[0]}\n{"resourceSpans":[\n`), 2)
  })

  it('rejects a line that is not an ExportTraceServiceRequest', () => {
    expectInvalid(() => parseOtlpLines('{"spans":[]}'), 1)
    const badId = valid[1]!.replace(/"traceId":"[0-9a-f]{32}"/, '"traceId":"not-hex"')
    expectInvalid(() => parseOtlpLines(`${valid[0]}\n${badId}`), 2)
    const noName = valid[1]!.replace(/"name":"eval\.task",/, '')
    expectInvalid(() => parseOtlpLines(noName), 1)
  })

  it('accepts 64-bit times written as numbers, as some writers do', () => {
    const numeric = valid[0]!.replace(/"(start|end)TimeUnixNano":"(\d+)"/g, '"$1TimeUnixNano":$2')
    expect(numeric).not.toBe(valid[0])
    expect(otlpSpans(parseOtlpLines(numeric))).toHaveLength(3)
  })
})
