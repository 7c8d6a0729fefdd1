// Issue 9's span acceptance: the toy benchmark, run by a real Vitest child with OTEL_EXPORTER_OTLP_ENDPOINT set,
// exports its spans over OTLP/HTTP to a receiver this test starts on 127.0.0.1, and spans.jsonl in the bundle
// holds the same spans: one trace, eval.run over eval.task over the agent's, evaluators' and benchmark's spans.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  otlpSpans,
  parseOtlpLines,
  type OtlpSpan,
  type OtlpTraceRequest,
} from '../../src/observability/index.ts'
import { startOtlpReceiver, type OtlpReceiver } from '../observability/otlp-receiver.ts'
import { bundleDirs, readScores, runVitest, tail, tempDir, validateWithCli, type TempDir } from './helpers.ts'

let receiver: OtlpReceiver
let runs: TempDir
let bundle: string
let exported: OtlpSpan[]
let written: OtlpSpan[]

beforeAll(async () => {
  receiver = await startOtlpReceiver()
  runs = await tempDir('otel-export')
  const result = await runVitest(['run', '--project', 'evals', 'evals/toy.eval.ts'], {
    runsDir: runs.path,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_HEADERS: 'x-team=evals%20ci' },
    timeoutMs: 120_000,
  })
  expect(result.code, tail(result.output)).toBe(0)
  const dirs = await bundleDirs(runs.path)
  expect(dirs).toHaveLength(1)
  bundle = dirs[0]!
  exported = otlpSpans(receiver.requests.map((r) => JSON.parse(r.body) as OtlpTraceRequest))
  written = otlpSpans(parseOtlpLines(await readFile(join(bundle, 'spans.jsonl'), 'utf8')))
}, 150_000)

afterAll(async () => {
  await receiver?.close()
  await runs?.remove()
})

/** An OTLP AnyValue's content (`{ stringValue: 'x' }` → 'x'). */
const content = (value: unknown): unknown =>
  typeof value === 'object' && value !== null ? Object.values(value)[0] : undefined

const attr = (span: OtlpSpan, key: string): unknown =>
  content(span.attributes?.find((a) => a.key === key)?.value)

describe('spans of a toy run', () => {
  it('are POSTed as OTLP JSON to /v1/traces with the configured headers', () => {
    expect(receiver.requests.length).toBeGreaterThan(0)
    for (const request of receiver.requests) {
      expect(request.method).toBe('POST')
      expect(request.path).toBe('/v1/traces')
      expect(request.headers['content-type']).toMatch(/^application\/json/)
      expect(request.headers['x-team']).toBe('evals ci')
    }
  })

  it('are the spans of spans.jsonl, which the manifest covers', async () => {
    const key = (s: OtlpSpan) => `${s.spanId} ${s.parentSpanId ?? ''} ${s.name} ${s.startTimeUnixNano}`
    expect(exported.map(key).sort()).toEqual(written.map(key).sort())
    await expect(validateWithCli(bundle)).resolves.toMatchObject({ code: 0 })
  })

  it('form one trace: eval.run over one eval.task per trial, each over the trial’s own spans', async () => {
    const scores = await readScores(bundle)
    const byId = new Map(written.map((s) => [s.spanId, s]))
    const parentName = (s: OtlpSpan) => byId.get(s.parentSpanId ?? '')?.name
    expect(new Set(written.map((s) => s.traceId)).size).toBe(1)

    const roots = written.filter((s) => !s.parentSpanId)
    expect(roots.map((s) => s.name)).toEqual(['eval.run'])
    const tasks = written.filter((s) => s.name === 'eval.task')
    expect(tasks).toHaveLength(scores.trials.length)
    for (const task of tasks) expect(parentName(task)).toBe('eval.run')
    for (const name of ['eval.score', 'eval.report']) {
      expect(written.filter((s) => s.name === name).map(parentName)).toEqual(['eval.run'])
    }

    for (const span of written) {
      if (/^(invoke_agent |benchmark\.|eval\.evaluator |eval\.policy )/.test(span.name))
        expect(parentName(span), span.name).toBe('eval.task')
      if (/^(chat |execute_tool )/.test(span.name)) expect(parentName(span)).toMatch(/^invoke_agent /)
      expect(BigInt(span.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(span.startTimeUnixNano))
    }
    const agents = written.filter((s) => s.name.startsWith('invoke_agent '))
    expect(agents).toHaveLength(scores.trials.length)
    expect(written.some((s) => s.name.startsWith('chat '))).toBe(true)
    expect(written.some((s) => s.name.startsWith('execute_tool '))).toBe(true)
  })

  it('carry the GenAI attributes and every evaluator score as a gen_ai.evaluation.result event', async () => {
    const scores = await readScores(bundle)
    for (const span of written) {
      if (span.name.startsWith('invoke_agent ')) {
        expect(attr(span, 'gen_ai.operation.name')).toBe('invoke_agent')
        expect(span.name).toBe(`invoke_agent ${String(attr(span, 'gen_ai.agent.name'))}`)
      }
      if (span.name.startsWith('chat ')) {
        expect(attr(span, 'gen_ai.operation.name')).toBe('chat')
        expect(span.name).toBe(`chat ${String(attr(span, 'gen_ai.request.model'))}`)
      }
      if (span.name.startsWith('execute_tool ')) {
        expect(attr(span, 'gen_ai.operation.name')).toBe('execute_tool')
        expect(span.name).toBe(`execute_tool ${String(attr(span, 'gen_ai.tool.name'))}`)
      }
    }
    // Each trial's scores, as its evaluator spans report them, equal scores.json's.
    const byId = new Map(written.map((s) => [s.spanId, s]))
    for (const trial of scores.trials) {
      const task = written.find(
        (s) =>
          s.name === 'eval.task' &&
          attr(s, 'agentevalops.task.id') === trial.taskId &&
          Number(attr(s, 'agentevalops.trial')) === trial.trial,
      )
      expect(task, `${trial.taskId} #${trial.trial}`).toBeDefined()
      const reported = written
        .filter((s) => s.name.startsWith('eval.evaluator ') && byId.get(s.parentSpanId ?? '') === task)
        .map((s) => {
          const event = s.events?.find((e) => e.name === 'gen_ai.evaluation.result')
          const value = (key: string): unknown =>
            content(event?.attributes?.find((a) => a.key === key)?.value)
          return [String(value('gen_ai.evaluation.name')), Number(value('gen_ai.evaluation.score.value'))]
        })
      expect(reported.sort()).toEqual(trial.scores.map((s) => [s.evaluatorId, s.score]).sort())
    }
  })
})
