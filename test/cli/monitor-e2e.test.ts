// `agentevalops monitor` with the real parts (monitor-wiring.ts): the seed's traces API and publisher faked on
// 127.0.0.1, the real AMP source and publisher, the real evaluators and trace scorer. A window of 25 traces over three
// pages becomes a valid monitor bundle and one scores payload; a rerun with the ledger scores no trace twice and the
// same window without it publishes the same score ids.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ScoresPayload } from '../../src/core/index.ts'
import { startFakeHttp, type FakeHttp } from '../monitor/amp/fake-http.ts'
import { productionTrace } from '../monitor/support/traces.ts'
import { monitorCommandWith } from '../../src/cli/commands/monitor.ts'
import { monitorParts } from '../../src/cli/commands/monitor-wiring.ts'
import { recorder, runCli } from './helpers.ts'

const window = Array.from({ length: 25 }, (_, i) => productionTrace(i + 1))
let traces: FakeHttp
let publisher: FakeHttp
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-monitor-e2e-'))
  traces = await startFakeHttp((req) => {
    const offset = Number(req.query.get('offset') ?? '0')
    const limit = Number(req.query.get('limit') ?? '10')
    return { status: 200, body: { traces: window.slice(offset, offset + limit), totalCount: window.length } }
  })
  publisher = await startFakeHttp(() => ({ status: 200, body: {} }))
})
afterAll(async () => {
  await traces.close()
  await publisher.close()
  await rm(dir, { recursive: true, force: true })
})

const evaluators = JSON.stringify([
  { identifier: 'trace-quality', displayName: 'Trace quality' },
  { identifier: 'regex-match', displayName: 'Answer ok', config: { pattern: '\\bok\\b' } },
])

function flags(runId: string, extra: string[] = []): string[] {
  return [
    ...['--monitor-name', 'support', '--organization', 'acme', '--project', 'helpdesk'],
    ...['--agent', 'support-agent', '--environment', 'prod', '--evaluators', evaluators],
    ...['--trace-start', '2026-01-31T00:00:00Z', '--trace-end', '2026-01-31T01:00:00Z'],
    ...['--traces-api-endpoint', traces.url, '--monitor-id', 'mon-1', '--run-id', runId],
    ...['--publisher-endpoint', publisher.url, '--output', dir],
    ...extra,
  ]
}

function payloads(): ScoresPayload[] {
  return publisher.requests.map((r) => ScoresPayload.parse(JSON.parse(r.body)))
}

it('a window through the real parts: pages, a valid bundle, one payload; a rerun with the ledger scores nothing twice', async () => {
  const ledger = join(dir, 'ledger.jsonl')
  const first = await runCli('monitor', ...flags('run-1', ['--ledger', ledger]))
  expect(first.stderr).toBe('')
  expect(first.code).toBe(0)
  expect(traces.requests.length).toBeGreaterThanOrEqual(3)
  expect(publisher.requests.map((r) => r.path)).toEqual([
    '/api/v1/publisher/monitors/mon-1/runs/run-1/scores',
  ])
  const [payload] = payloads()
  const traced = new Set(payload!.individualScores.map((s) => s.traceId))
  expect(traced.size).toBe(25)
  expect(payload!.aggregatedScores.map((a) => a.evaluatorName).sort()).toEqual(['Answer ok', 'Trace quality'])
  const validated = await runCli('validate-bundle', join(dir, 'run-1'))
  expect(validated.stderr).toBe('')
  expect(validated.code).toBe(0)

  const rerun = await runCli('monitor', ...flags('run-2', ['--ledger', ledger]))
  expect(rerun.code).toBe(0)
  expect(rerun.stdout).toContain('nothing new to score: nothing published')
  expect(publisher.requests).toHaveLength(1)

  // Without the ledger the same window publishes again, with the same score ids (here: the same payload).
  const again = await runCli('monitor', ...flags('run-1'))
  expect(again.code).toBe(0)
  const [, second] = payloads()
  const ids = (p: ScoresPayload) =>
    p.individualScores.map((s) => `${s.traceId} ${s.evaluatorName} ${s.score ?? s.skipReason}`).sort()
  expect(ids(second!)).toEqual(ids(payload!))
})

it('wrong IdP credentials: exit 1 naming the token endpoint, never the secret, and nothing fetched or published', async () => {
  const idp = await startFakeHttp(() => ({ status: 401, body: { error: 'invalid_client' } }))
  try {
    const io = recorder()
    const env = {
      IDP_TOKEN_URL: `${idp.url}/oauth2/token`,
      IDP_CLIENT_ID: 'monitor-job',
      IDP_CLIENT_SECRET: 's3cr3t-never-printed',
    }
    const tracesBefore = traces.requests.length
    const publishedBefore = publisher.requests.length
    const code = await monitorCommandWith({ parts: monitorParts, env }).run(flags('creds-1'), io)
    expect(code).toBe(1)
    const printed = [...io.stdout, ...io.stderr].join('\n')
    expect(printed).toContain(`${idp.url}/oauth2/token`)
    expect(printed).not.toContain('s3cr3t-never-printed')
    // client_secret_basic: the secret went to the token endpoint only, in the Authorization header.
    const basic = Buffer.from('monitor-job:s3cr3t-never-printed').toString('base64')
    expect(idp.requests[0]!.headers.authorization).toBe(`Basic ${basic}`)
    expect(traces.requests.length).toBe(tracesBefore)
    expect(publisher.requests.length).toBe(publishedBefore)
  } finally {
    await idp.close()
  }
})
