// `agentevalops monitor` and `monitor publish --from-file`, in process, over the monitor parts of
// test/monitor/support/parts.ts (the real engine scorer, in-test sources and sinks): flag checks, an empty window,
// a window as a bundle that validate-bundle accepts, the publish fallback and its later send.
import { existsSync } from 'node:fs'
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { monitorCommandWith } from '../../src/cli/commands/monitor.ts'
import { RunMetadata } from '../../src/core/index.ts'
import { recordingPublisher } from '../monitor/support/sources.ts'
import { seedFlags, testParts } from '../monitor/support/parts.ts'
import { productionTrace } from '../monitor/support/traces.ts'
import { recorder, runCli } from './helpers.ts'

const temps: string[] = []
afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true })
})
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'aeo-monitor-cli-'))
  temps.push(dir)
  return dir
}

const traces = (n: number) => Array.from({ length: n }, (_, i) => productionTrace(i + 1))

async function monitor(parts: ReturnType<typeof testParts>['parts'], args: string[]) {
  const io = recorder()
  const code = await monitorCommandWith({ parts, env: {} }).run(args, io)
  return { code, stdout: io.stdout, stderr: io.stderr }
}

describe('agentevalops monitor: flags', () => {
  it.each([
    [
      '--trace-start',
      'yesterday',
      /^agentevalops monitor: --trace-start: "yesterday" is not an ISO 8601 time/,
    ],
    ['--trace-end', '2026-01-31T01:00:00', /^agentevalops monitor: --trace-end: .* with a time zone/],
    [
      '--sampling-rate',
      '1.5',
      /^agentevalops monitor: --sampling-rate: "1.5" is not a rate between 0 and 1$/,
    ],
    ['--settle', '5 minutes', /^agentevalops monitor: --settle: "5 minutes" is not a duration/],
    ['--max-traces', '0', /^agentevalops monitor: --max-traces: "0" is not a positive whole number$/],
    [
      '--traces-api-endpoint',
      'traces:8080',
      /^agentevalops monitor: --traces-api-endpoint: .* not an http\(s\) URL/,
    ],
  ])('a bad %s exits 2 with one line naming it, before anything is fetched', async (flag, value, line) => {
    const result = await runCli('monitor', ...seedFlags({ [flag]: value }))
    expect(result.code).toBe(2)
    expect(result.stderr.split('\n')).toEqual([expect.stringMatching(line)])
  })

  it('a window that ends before it starts, or no source, or no sink: exit 2 naming the flag', async () => {
    const backwards = await runCli('monitor', ...seedFlags({ '--trace-end': '2026-01-30T00:00:00Z' }))
    expect(backwards.code).toBe(2)
    expect(backwards.stderr).toMatch(/^agentevalops monitor: --trace-end: .* is not after --trace-start/)
    const flags = seedFlags()
    const without = (name: string) => {
      const at = flags.indexOf(name)
      return [...flags.slice(0, at), ...flags.slice(at + 2)]
    }
    const noSource = await runCli('monitor', ...without('--traces-api-endpoint'))
    expect(noSource.code).toBe(2)
    expect(noSource.stderr).toMatch(/--traces-api-endpoint is required/)
    const noSink = await runCli('monitor', ...without('--publisher-endpoint'))
    expect(noSink.code).toBe(2)
    expect(noSink.stderr).toMatch(/--publisher-endpoint is required/)
    const noAgent = await runCli('monitor', ...without('--agent'))
    expect(noAgent).toMatchObject({ code: 2, stderr: 'agentevalops monitor: --agent is required' })
    const twoSources = await runCli('monitor', ...seedFlags({ '--traces-file': 'spans.jsonl' }))
    expect(twoSources.code).toBe(2)
    expect(twoSources.stderr).toMatch(/one trace source, not two/)
  })

  it('--help lists every flag of the seed and ours', async () => {
    const result = await runCli('monitor', '--help')
    expect(result.code).toBe(0)
    for (const flag of [
      ...seedFlags().filter((a) => a.startsWith('--')),
      '--settle',
      '--max-traces',
      '--max-cost-usd',
      '--ledger',
      '--output',
      '--grace',
      '--traces-file',
      '--langfuse-endpoint',
      '--otlp-logs-endpoint',
      '--langfuse-publish',
      '--no-publish',
    ])
      expect(result.stdout).toContain(`  ${flag}`)
  })
})

describe('agentevalops monitor: a window', () => {
  it('an empty window: exit 0, "no traces", nothing published, no bundle', async () => {
    const dir = await tempDir()
    const { parts, publisher } = testParts({ traces: [] })
    const result = await monitor(parts, seedFlags({ '--output': dir }))
    expect(result.code).toBe(0)
    expect(result.stdout).toEqual([
      expect.stringMatching(
        /^no traces in the window \[2026-01-31T00:00:00.000Z, 2026-01-31T01:00:00.000Z\)/,
      ),
    ])
    expect(publisher.batches).toEqual([])
    expect(await readdir(dir)).toEqual([])
  })

  it('scores a window, publishes it, and writes it as a bundle (status monitor) that validate-bundle accepts', async () => {
    const dir = await tempDir()
    const { parts, publisher, asked } = testParts({ traces: traces(12) })
    const result = await monitor(parts, seedFlags({ '--output': dir }))
    expect(result.stderr).toEqual([])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('published 12 score(s)')
    expect(asked.find((a) => a.factory === 'createAmpTraceSource')?.options).toEqual({
      endpoint: 'http://127.0.0.1:1/traces',
      organization: 'acme',
      project: 'helpdesk',
      agent: 'support-agent',
      environment: 'prod',
      tokens: null,
    })
    expect(asked.find((a) => a.factory === 'createAmpPublisher')?.options).toEqual({
      endpoint: 'http://127.0.0.1:1/publisher',
      monitorId: 'mon-1',
      runId: 'run-1',
      tokens: null,
    })
    expect(publisher.batches).toHaveLength(1)
    const bundle = join(dir, 'run-1')
    const metadata = RunMetadata.parse(JSON.parse(await readFile(join(bundle, 'metadata.json'), 'utf8')))
    expect(metadata).toMatchObject({
      status: 'monitor',
      trialCount: 12,
      monitor: {
        monitorName: 'support',
        monitorId: 'mon-1',
        runId: 'run-1',
        window: { start: '2026-01-31T00:00:00.000Z', end: '2026-01-31T01:00:00.000Z' },
        counts: { fetched: 12, scored: 12 },
        stoppedBy: null,
      },
    })
    for (const file of ['report.html', 'report.md', 'spans.jsonl', 'traces.jsonl', 'manifest.json'])
      expect(existsSync(join(bundle, file)), file).toBe(true)
    const validated = await runCli('validate-bundle', bundle)
    expect(validated.stderr).toBe('')
    expect(validated.code).toBe(0)
    expect(await readdir(dir), 'the spill folder is gone').toEqual(['run-1'])
    const report = await readFile(join(bundle, 'report.md'), 'utf8')
    expect(report).toContain('2026-01-31T00:00:00.000Z to 2026-01-31T01:00:00.000Z')
    expect(report).toContain('12 fetched, 12 scored')
    const html = await readFile(join(bundle, 'report.html'), 'utf8')
    for (const t of traces(12)) expect(html).toContain(t.traceId)
    const spans = await readFile(join(bundle, 'spans.jsonl'), 'utf8')
    expect(spans.trim().split('\n')).toHaveLength(13)

    // A monitor section that does not add up is a finding of its own.
    const damaged = join(await tempDir(), 'run-1')
    await cp(bundle, damaged, { recursive: true })
    const tampered = {
      ...metadata,
      monitor: { ...metadata.monitor!, counts: { ...metadata.monitor!.counts!, scored: 11 } },
    }
    await writeFile(join(damaged, 'metadata.json'), JSON.stringify(tampered))
    const checked = await runCli('validate-bundle', '--json', damaged)
    expect(checked.code).toBe(1)
    const findings = (JSON.parse(checked.stdout) as { findings: { check: string; message: string }[] })
      .findings
    expect(findings.filter((f) => f.check === 'monitor-window').map((f) => f.message)).toEqual([
      'monitor.counts.scored is 11 but scores.json has 12 trial(s)',
    ])

    // The same run id again (a retried workflow step): a second bundle beside the first, never over it.
    const again = await monitor(testParts({ traces: traces(3) }).parts, seedFlags({ '--output': dir }))
    expect(again.code).toBe(0)
    expect((await readdir(dir)).sort()).toEqual(['run-1', 'run-1-r2'])
  })

  it('a sink that fails: exit 1 naming the file; monitor publish --from-file sends it later and fills the ledger', async () => {
    const dir = await tempDir()
    const ledger = join(dir, 'ledger.jsonl')
    const failing = recordingPublisher(1, 'publisher http://127.0.0.1:1/publisher: 500 after 3 tries')
    const { parts } = testParts({ traces: traces(6), publisher: failing })
    const result = await monitor(parts, seedFlags({ '--output': dir, '--ledger': ledger }))
    expect(result.code).toBe(1)
    const file = join(dir, 'run-1.unpublished.jsonl')
    expect(result.stderr).toContain(
      'agentevalops monitor: in-test publisher: publisher http://127.0.0.1:1/publisher: 500 after 3 tries',
    )
    expect(result.stderr).toContain(
      `agentevalops monitor: the scores are kept in ${file}; send them with: agentevalops monitor publish --from-file ${file} <the sink flags>`,
    )
    expect(existsSync(ledger), 'nothing published, nothing in the ledger').toBe(false)

    const later = recordingPublisher()
    const sent = await monitor(testParts({ publisher: later }).parts, [
      'publish',
      '--from-file',
      file,
      '--publisher-endpoint',
      'http://127.0.0.1:1/publisher',
      '--ledger',
      ledger,
    ])
    expect(sent.stderr).toEqual([])
    expect(sent.code).toBe(0)
    expect(later.batches).toHaveLength(1)
    expect(later.batches[0]).toMatchObject({ monitorId: 'mon-1', runId: 'run-1' })
    expect(later.batches[0]!.scores).toHaveLength(6)
    expect((await readFile(ledger, 'utf8')).trim().split('\n')).toHaveLength(6)

    // With the ledger filled, a rerun of the window scores nothing again.
    const rerun = await monitor(
      testParts({ traces: traces(6) }).parts,
      seedFlags({ '--output': dir, '--ledger': ledger }),
    )
    expect(rerun.code).toBe(0)
    expect(rerun.stdout).toContain('nothing new to score: nothing published')
  })

  it('monitor publish refuses a damaged file by field, and keeps it', async () => {
    const dir = await tempDir()
    const file = join(dir, 'run-1.unpublished.json')
    await writeFile(file, JSON.stringify({ version: 1, writtenAt: 'now', batch: {} }))
    const result = await runCli(
      'monitor',
      'publish',
      '--from-file',
      file,
      '--publisher-endpoint',
      'http://127.0.0.1:1',
    )
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/run-1\.unpublished\.json: writtenAt: /)
    expect(existsSync(file)).toBe(true)
  })

  it('compare between two windows: unpaired pass rates, NO_GO when production got worse', async () => {
    const dir = await tempDir()
    const window = async (runId: string, first: number, okShare: number) => {
      const traces = Array.from({ length: 60 }, (_, i) =>
        productionTrace(first + i, { answer: i < okShare * 60 ? 'all ok' : 'sorry' }),
      )
      const result = await monitor(
        testParts({ traces }).parts,
        seedFlags({ '--output': dir, '--run-id': runId }),
      )
      expect(result.code).toBe(0)
      return join(dir, runId)
    }
    const monday = await window('monday', 1, 0.9)
    const tuesday = await window('tuesday', 101, 0.4)
    const wednesday = await window('wednesday', 201, 0.9)

    const worse = await runCli('compare', monday, tuesday)
    expect(worse.code).toBe(1)
    expect(worse.stdout).toContain('answer-ok: 90.0% of 60 → 40.0% of 60; -50.0 pts')
    expect(worse.stdout).toMatch(/Verdict: NO_GO$/)

    const same = await runCli('compare', '--json', monday, wednesday)
    expect(same.code).toBe(0)
    const json = JSON.parse(same.stdout) as { kind: string; verdict: string; metrics: { metric: string }[] }
    expect(json.kind).toBe('windows')
    expect(json.verdict).not.toBe('NO_GO')
    expect(json.metrics.map((m) => m.metric)).toEqual(['pass', 'answer-ok'])

    const latest = await runCli('compare', 'latest', tuesday)
    expect(latest.code).toBe(2)
    expect(latest.stderr).toMatch(/give the earlier window's bundle/)
  })

  it("--ledger <bundle>: the last window's bundle skips the traces it scored; other evaluators skip none", async () => {
    const dir = await tempDir()
    const first = await monitor(testParts({ traces: traces(10) }).parts, seedFlags({ '--output': dir }))
    expect(first.code).toBe(0)
    const last = join(dir, 'run-1')
    const { parts, publisher } = testParts({ traces: traces(15) })
    const next = await monitor(parts, seedFlags({ '--output': dir, '--run-id': 'run-2', '--ledger': last }))
    expect(next.code).toBe(0)
    expect(next.stdout[0]).toContain('15 trace(s) fetched, 5 scored; not scored: 10 already scored')
    expect(publisher.batches).toHaveLength(1)

    const otherEvaluators = JSON.stringify([
      { identifier: 'answer-ok', displayName: 'Answer is ok', level: 'agent' },
    ])
    const other = await monitor(
      testParts({ traces: traces(15) }).parts,
      seedFlags({ '--output': dir, '--run-id': 'run-3', '--ledger': last, '--evaluators': otherEvaluators }),
    )
    expect(other.code).toBe(0)
    expect(other.stderr).toContain(
      `agentevalops monitor: --ledger ${last} was scored with other evaluators: no trace is skipped`,
    )
    expect(other.stdout[0]).toContain('15 trace(s) fetched, 15 scored')
  })

  it('other sources and sinks: OTLP file source, Langfuse and OTLP logs sinks, keys from the environment only', async () => {
    const dir = await tempDir()
    const { parts, asked, publisher } = testParts({ traces: traces(4) })
    const flags = seedFlags({ '--output': dir })
    const at = flags.indexOf('--traces-api-endpoint')
    flags.splice(at, 2, '--traces-file', join(dir, 'spans.jsonl'))
    const publisherAt = flags.indexOf('--publisher-endpoint')
    flags.splice(publisherAt, 2)
    flags.push('--langfuse-endpoint', 'http://127.0.0.1:1/lf/', '--langfuse-publish')
    flags.push('--otlp-logs-endpoint', 'http://127.0.0.1:1/v1/logs')
    const env = {
      LANGFUSE_PUBLIC_KEY: 'pk-lf-1',
      LANGFUSE_SECRET_KEY: 'sk-lf-1',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=ops,authorization=Bearer%20t',
    }
    const io = recorder()
    const code = await monitorCommandWith({ parts, env }).run(flags, io)
    expect(io.stderr).toEqual([])
    expect(code).toBe(0)
    expect(asked.map((a) => a.factory)).toEqual([
      'createOtlpFileSource',
      'createLangfusePublisher',
      'createOtlpLogsPublisher',
      'createTraceScorer',
    ])
    expect(asked[0]!.options).toEqual({ path: join(dir, 'spans.jsonl') })
    expect(asked[1]!.options).toEqual({
      endpoint: 'http://127.0.0.1:1/lf',
      publicKey: 'pk-lf-1',
      secretKey: 'sk-lf-1',
    })
    expect(asked[2]!.options).toEqual({
      endpoint: 'http://127.0.0.1:1/v1/logs',
      headers: { 'x-team': 'ops', authorization: 'Bearer t' },
    })
    expect(publisher.batches, 'one batch to each of the two sinks').toHaveLength(2)

    // Without the keys: SECRET_MISSING naming the variable (main prints it and exits 1), before anything is fetched.
    const noKeys = testParts({ traces: traces(4) })
    await expect(
      monitorCommandWith({ parts: noKeys.parts, env: {} }).run(flags, recorder()),
    ).rejects.toMatchObject({
      code: 'SECRET_MISSING',
      message: expect.stringContaining('LANGFUSE_PUBLIC_KEY') as unknown,
    })
    expect(noKeys.asked.map((a) => a.factory)).toEqual(['createOtlpFileSource'])

    // --no-publish: the bundle only, and the ledger filled from it.
    const ledger = join(dir, 'ledger.jsonl')
    const quiet = await monitor(
      testParts({ traces: traces(4) }).parts,
      seedFlags({
        '--output': dir,
        '--run-id': 'quiet',
        '--publisher-endpoint': '',
        '--no-publish': '',
        '--ledger': ledger,
      }).filter((a) => a !== '--publisher-endpoint'),
    )
    expect(quiet.code).toBe(0)
    expect(quiet.stdout).toContain('not published (--no-publish)')
    expect(existsSync(join(dir, 'quiet', 'manifest.json'))).toBe(true)
    expect((await readFile(ledger, 'utf8')).trim().split('\n')).toHaveLength(4)
  })
})
