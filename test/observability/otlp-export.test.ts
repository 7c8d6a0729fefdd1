import { afterEach, describe, expect, it } from 'vitest'
import {
  buildRunSpanLines,
  exportOtlp,
  otlpSpans,
  otlpTarget,
  parseOtlpLines,
  type OtlpTarget,
} from '../../src/observability/index.ts'
import { makeMetadata, makeSummary } from '../bundles/fixtures.ts'
import { timelineEvents, timelineTrial } from './helpers.ts'
import { startOtlpReceiver, unusedPort, type OtlpReceiver } from './otlp-receiver.ts'

let receiver: OtlpReceiver | undefined
afterEach(async () => {
  await receiver?.close()
  receiver = undefined
})

const FAST = { baseDelayMs: 1, maxDelayMs: 5 }

function target(env: Record<string, string>): OtlpTarget {
  const t = otlpTarget(env)
  if (t === null || 'error' in t) throw new Error(`expected a target, got ${JSON.stringify(t)}`)
  return t
}

describe('otlpTarget', () => {
  it('is null when no endpoint is set, or tracing is switched off', () => {
    expect(otlpTarget({})).toBeNull()
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeNull()
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull()
    expect(
      otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBeNull()
    expect(
      otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_TRACES_EXPORTER: 'console,otlp' }),
    ).not.toBeNull()
  })

  it('appends /v1/traces to the base endpoint, and takes the traces endpoint as is', () => {
    expect(target({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' }).url).toBe(
      'http://localhost:4318/v1/traces',
    )
    expect(target({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://cloud.example/api/public/otel/' }).url).toBe(
      'https://cloud.example/api/public/otel/v1/traces',
    )
    expect(
      target({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:9999/custom/path',
      }).url,
    ).toBe('http://collector:9999/custom/path')
  })

  it('decodes and merges headers, the traces-specific list winning', () => {
    const t = target({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Basic%20cGs6c2s=, x-team = evals ,broken,=novalue',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'X-Team=traces',
    })
    expect(t.headers).toEqual({ authorization: 'Basic cGs6c2s=', 'x-team': 'traces' })
  })

  it('accepts http/json and refuses any other protocol with an explanation', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' }
    expect(target({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).url).toContain('/v1/traces')
    for (const [name, protocol] of [
      ['OTEL_EXPORTER_OTLP_PROTOCOL', 'http/protobuf'],
      ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'grpc'],
    ] as const) {
      const result = otlpTarget({ ...base, [name]: protocol })
      expect(result && 'error' in result ? result.error : '').toMatch(
        new RegExp(`${name}=${protocol}.*http/json`),
      )
    }
    // The traces-specific setting decides.
    expect(
      target({
        ...base,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }).url,
    ).toContain('/v1/traces')
  })

  it('rejects an endpoint that is not an http(s) URL, and reads the timeout', () => {
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'localhost:4318' })).toHaveProperty('error')
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' })).toHaveProperty('error')
    const withCredentials = otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://user:pw@collector:4318' })
    expect(withCredentials && 'error' in withCredentials ? withCredentials.error : '').toContain(
      'OTEL_EXPORTER_OTLP_HEADERS',
    )
    expect(JSON.stringify(withCredentials)).not.toContain('pw')
    expect(
      target({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_EXPORTER_OTLP_TIMEOUT: '2500' }).timeoutMs,
    ).toBe(2500)
  })
})

describe('exportOtlp', () => {
  function runLines(): string[] {
    const trial = timelineTrial()
    return buildRunSpanLines({
      metadata: makeMetadata([trial]),
      trials: [trial],
      events: timelineEvents(trial),
      summary: makeSummary([trial]),
      env: {},
    })
  }

  it('POSTs every line as OTLP JSON to the receiver, headers included', async () => {
    receiver = await startOtlpReceiver()
    const lines = runLines()
    const t = target({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20t0k',
    })
    const result = await exportOtlp(lines, t, FAST)
    expect(result).toEqual({ ok: true, requests: lines.length, rejectedSpans: 0 })
    expect(receiver.requests).toHaveLength(lines.length)
    receiver.requests.forEach((request, i) => {
      expect(request.method).toBe('POST')
      expect(request.path).toBe('/v1/traces')
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers['authorization']).toBe('Bearer t0k')
      expect(JSON.parse(request.body)).toEqual(JSON.parse(lines[i]!))
    })
  })

  it('exports a run end to end: names, parent/child structure and GenAI attributes arrive intact', async () => {
    receiver = await startOtlpReceiver()
    const lines = runLines()
    expect((await exportOtlp(lines, target({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }), FAST)).ok).toBe(
      true,
    )
    const spans = otlpSpans(parseOtlpLines(receiver.requests.map((r) => r.body).join('\n')))
    const named = (name: string) => spans.find((s) => s.name === name)!
    const run = named('eval.run')
    const task = named('eval.task')
    const agent = named('invoke_agent claude-agent')
    expect(run.parentSpanId).toBeUndefined()
    expect(task.parentSpanId).toBe(run.spanId)
    expect(agent.parentSpanId).toBe(task.spanId)
    expect(named('execute_tool calc').parentSpanId).toBe(agent.spanId)
    expect(
      spans.filter((s) => s.name === 'chat claude-x').every((s) => s.parentSpanId === agent.spanId),
    ).toBe(true)
    expect(named('eval.evaluator exact-match').parentSpanId).toBe(task.spanId)
    expect(agent.attributes).toContainEqual({
      key: 'gen_ai.operation.name',
      value: { stringValue: 'invoke_agent' },
    })
    expect(agent.attributes).toContainEqual({ key: 'gen_ai.usage.input_tokens', value: { intValue: 120 } })
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1)
  })

  it('retries a 503 and succeeds', async () => {
    receiver = await startOtlpReceiver([{ status: 503, body: 'busy' }])
    const lines = runLines()
    const result = await exportOtlp(lines, target({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }), FAST)
    expect(result).toMatchObject({ ok: true, requests: lines.length })
    expect(receiver.requests).toHaveLength(lines.length + 1)
    expect(receiver.requests[0]!.body).toBe(receiver.requests[1]!.body)
  })

  it('honours Retry-After up to the delay cap', async () => {
    receiver = await startOtlpReceiver([{ status: 429, headers: { 'retry-after': '30' } }])
    const waits: number[] = []
    const sleep = async (ms: number) => void waits.push(ms)
    const result = await exportOtlp(
      ['{"resourceSpans":[]}'],
      target({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }),
      {
        baseDelayMs: 1,
        maxDelayMs: 40,
        sleep,
      },
    )
    expect(result.ok).toBe(true)
    expect(waits).toEqual([40])
  })

  it('does not retry a 400, and stops at the first line that fails', async () => {
    receiver = await startOtlpReceiver([{ status: 200 }, { status: 400, body: '{"message":"bad span"}' }])
    const result = await exportOtlp(
      ['{"resourceSpans":[]}', '{"bad":1}', '{"resourceSpans":[]}'],
      target({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20s3cr3t-value',
      }),
      FAST,
    )
    expect(result).toEqual({
      ok: false,
      requests: 1,
      error: `OTLP export to ${receiver.url}/v1/traces failed: HTTP 400: {"message":"bad span"}`,
    })
    expect(receiver.requests).toHaveLength(2)
  })

  it('gives up after its retries on a 503 that does not go away', async () => {
    receiver = await startOtlpReceiver([{ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }])
    const result = await exportOtlp(
      ['{"resourceSpans":[]}'],
      target({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }),
      {
        ...FAST,
        retries: 2,
      },
    )
    expect(result).toMatchObject({ ok: false, requests: 0 })
    expect(!result.ok && result.error).toContain('HTTP 503')
    expect(receiver.requests).toHaveLength(3)
  })

  it('reports an unreachable endpoint as ok: false without throwing', async () => {
    const port = await unusedPort()
    const result = await exportOtlp(
      ['{"resourceSpans":[]}'],
      target({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }),
      { ...FAST, retries: 1 },
    )
    expect(result.ok).toBe(false)
    expect(!result.ok && result.error).toMatch(
      new RegExp(`^OTLP export to http://127\\.0\\.0\\.1:${port}/v1/traces failed: `),
    )
    expect(!result.ok && result.error).toContain('ECONNREFUSED')
  })

  it('times out a receiver that never answers', async () => {
    receiver = await startOtlpReceiver([{ status: 200, hang: true }])
    const result = await exportOtlp(
      ['{"resourceSpans":[]}'],
      target({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }),
      {
        ...FAST,
        retries: 0,
        timeoutMs: 200,
      },
    )
    expect(result).toEqual({
      ok: false,
      requests: 0,
      error: `OTLP export to ${receiver.url}/v1/traces failed: no answer within 200 ms`,
    })
  })

  it('counts spans a receiver reports as rejected (OTLP partial success)', async () => {
    receiver = await startOtlpReceiver([
      { status: 200, body: '{"partialSuccess":{"rejectedSpans":"2","errorMessage":"too old"}}' },
    ])
    const result = await exportOtlp(
      ['{"resourceSpans":[]}'],
      target({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }),
    )
    expect(result).toEqual({ ok: true, requests: 1, rejectedSpans: 2 })
  })
})
