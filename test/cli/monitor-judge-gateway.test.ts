// `agentevalops monitor` with an llm_judge evaluator and the seed's deployment variables: LLM_API_BASE / LLM_API_KEY
// route every judgement to an OpenAI-compatible gateway (the real openai SDK against a fake on 127.0.0.1), a key
// alone never goes to Anthropic, and the judge's spend is counted in the window's bundle.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { monitorCommandWith } from '../../src/cli/commands/monitor.ts'
import { monitorParts } from '../../src/cli/commands/monitor-wiring.ts'
import { ScoresPayload } from '../../src/core/index.ts'
import { startFakeHttp, type FakeHttp } from '../monitor/amp/fake-http.ts'
import { productionTrace } from '../monitor/support/traces.ts'
import { FakeOpenAIServer } from '../support/fake-openai-server.ts'
import { recorder } from './helpers.ts'

const window = Array.from({ length: 3 }, (_, i) => productionTrace(i + 1))
let traces: FakeHttp
let publisher: FakeHttp
let gateway: FakeOpenAIServer
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-monitor-judge-'))
  traces = await startFakeHttp(() => ({ status: 200, body: { traces: window, totalCount: window.length } }))
  publisher = await startFakeHttp(() => ({ status: 200, body: {} }))
  gateway = await FakeOpenAIServer.start()
})
afterAll(async () => {
  await traces.close()
  await publisher.close()
  await gateway.close()
  await rm(dir, { recursive: true, force: true })
})

const evaluators = JSON.stringify([
  {
    identifier: 'llm_judge',
    displayName: 'Helpful',
    config: { rubric: 'The answer helps the user.', model: 'gpt-4.1-mini' },
  },
])

function flags(runId: string): string[] {
  return [
    ...['--monitor-name', 'support', '--organization', 'acme', '--project', 'helpdesk'],
    ...['--agent', 'support-agent', '--environment', 'prod', '--evaluators', evaluators],
    ...['--trace-start', '2026-01-31T00:00:00Z', '--trace-end', '2026-01-31T01:00:00Z'],
    ...['--traces-api-endpoint', traces.url, '--monitor-id', 'mon-1', '--run-id', runId],
    ...['--publisher-endpoint', publisher.url, '--output', dir],
  ]
}

function verdict(score: number): {
  text: string
  usage: { prompt_tokens: number; completion_tokens: number }
} {
  const body = { score, passed: score >= 0.5, reasoning: 'judged', citations: [] }
  return { text: JSON.stringify(body), usage: { prompt_tokens: 1000, completion_tokens: 100 } }
}

it('judges every trace through the gateway LLM_API_BASE names, with LLM_API_KEY, and counts what it cost', async () => {
  gateway.enqueue(verdict(1), verdict(0), verdict(1))
  const io = recorder()
  const env = { LLM_API_BASE: gateway.url, LLM_API_KEY: 'sk-gateway-secret' }
  const code = await monitorCommandWith({ parts: monitorParts, env }).run(flags('judge-1'), io)
  expect(io.stderr.join('\n')).toBe('')
  expect(code).toBe(0)
  expect(gateway.requests).toHaveLength(3)
  for (const r of gateway.requests) {
    expect(r.path).toBe('/v1/chat/completions')
    expect(r.headers.authorization).toBe('Bearer sk-gateway-secret')
  }
  const payload = ScoresPayload.parse(JSON.parse(publisher.requests[0]!.body))
  expect(payload.individualScores.map((s) => s.score).sort()).toEqual([0, 1, 1])
  const [helpful] = payload.aggregatedScores
  expect(helpful).toMatchObject({ evaluatorName: 'Helpful', count: 3, skippedCount: 0 })
  // The judge's spend lands in the window's bundle, priced from the table, and the key in none of its files.
  const scores = JSON.parse(await readFile(join(dir, 'judge-1', 'scores.json'), 'utf8')) as {
    trials: { scores: { evaluatorId: string; costUsd: number }[] }[]
  }
  const costs = scores.trials.flatMap((t) => t.scores.map((s) => s.costUsd))
  expect(costs).toHaveLength(3)
  for (const c of costs) expect(c).toBeGreaterThan(0)
  expect(await readFile(join(dir, 'judge-1', 'traces.jsonl'), 'utf8')).not.toContain('sk-gateway-secret')
})

it('sends a key given alone (LLM_API_KEY, no LLM_API_BASE) to no provider but the OpenAI-compatible one', async () => {
  const io = recorder()
  // The judge goes where the openai SDK goes by default (OPENAI_BASE_URL, read from the process): the gateway here.
  vi.stubEnv('OPENAI_BASE_URL', gateway.url)
  const env = { LLM_API_KEY: 'sk-only-key' }
  gateway.enqueue(verdict(1), verdict(1), verdict(1))
  const before = gateway.requests.length
  const code = await monitorCommandWith({ parts: monitorParts, env }).run(flags('judge-2'), io)
  expect(code).toBe(0)
  const sent = gateway.requests.slice(before)
  expect(sent).toHaveLength(3)
  for (const r of sent) expect(r.headers.authorization).toBe('Bearer sk-only-key')
  vi.unstubAllEnvs()
})
