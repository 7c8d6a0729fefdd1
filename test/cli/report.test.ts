// `agentevalops report <bundle>`: the report re-rendered from a bundle's records alone.
import { existsSync } from 'node:fs'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mockRunner } from '../../src/agents/index.ts'
import { TOY_FORBIDDEN_TOOLS, TOY_TASK_IDS, toyBenchmark, toyScripts } from '../../src/benchmarks/index.ts'
import { writeBundle } from '../../src/bundles/index.ts'
import {
  BUNDLE_FORMAT_VERSION,
  benchmarkTraceDir,
  checksumOf,
  sdkVersion,
  type RunMetadata,
  type TrialRecord,
} from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { matchesExpected } from '../../src/evaluators/index.ts'
import { toolAccess } from '../../src/policy/index.ts'
import { renderMarkdownReport } from '../../src/reports/index.ts'
import { statsScorer } from '../../src/scorers/index.ts'
import { JsonlTraceStore } from '../../src/stores/index.ts'
import { buildBundle, copyBundle, tempDir } from '../bundles/fixtures.ts'
import { runCli } from './helpers.ts'

const RUN_ID = '01a22a00-0000-7000-8000-000000000001'

/**
 * A bundle as the pipeline makes one: real trials of toy tasks through the engine (a pass, a wrong answer, a policy
 * violation, a tool chain), summarised by the scorer, report.md rendered by renderMarkdownReport, written by
 * writeBundle — the steps of the bundle reporter, without Vitest around them.
 */
async function pipelineBundle(work: string): Promise<string> {
  const staging = join(work, 'staging')
  const bench = toyBenchmark()
  const ids = [
    TOY_TASK_IDS.exact,
    TOY_TASK_IDS.wrongAnswer,
    TOY_TASK_IDS.forbiddenTool,
    TOY_TASK_IDS.multiStep,
  ]
  const [tasks, info] = await Promise.all([bench.listTasks({ id: ids }), bench.info()])
  const traceRoot = benchmarkTraceDir(staging, info.id)
  const store = new JsonlTraceStore(traceRoot)
  const runner = mockRunner({ scripts: toyScripts })
  const trials: TrialRecord[] = []
  for (const task of tasks) {
    for (const trial of [0, 1]) {
      const { record } = await runTrial({
        runId: RUN_ID,
        benchmark: info,
        task,
        trial,
        runner,
        evaluators: [matchesExpected()],
        policy: [toolAccess({ deny: [...TOY_FORBIDDEN_TOOLS] })],
        traceStore: store,
      })
      trials.push({ ...record, tracePath: relative(staging, join(traceRoot, record.tracePath)) })
    }
  }
  const summary = statsScorer().summarize(trials)
  const metadata: RunMetadata = {
    schemaVersion: BUNDLE_FORMAT_VERSION,
    runId: RUN_ID,
    status: 'complete',
    labels: { suite: 'report-test' },
    target: trials[0]!.runner,
    targets: [trials[0]!.runner],
    benchmark: info,
    benchmarks: [info],
    startedAt: '2025-03-04T05:06:07.000Z',
    finishedAt: '2025-03-04T05:06:09.500Z',
    durationSec: 2.5,
    sdkVersion: sdkVersion(),
    git: { sha: 'f'.repeat(40), dirty: true },
    node: process.version,
    vitest: '4.1.12',
    configHash: checksumOf({ test: 'report' }),
    seed: null,
    shard: null,
    vitestProject: 'evals',
    testNamePattern: null,
    trialCount: trials.length,
    resumedFrom: [],
  }
  return writeBundle({
    runsDir: join(work, 'runs'),
    metadata,
    trials,
    summary,
    traceFiles: trials.map((t) => join(staging, t.tracePath)),
    reports: { 'report.md': renderMarkdownReport({ metadata, trials, summary }) },
    replayCommand: 'npx vitest run --project evals',
  })
}

let work: Awaited<ReturnType<typeof tempDir>>
let bundle: string

beforeAll(async () => {
  work = await tempDir('aeo-report-')
  bundle = await pipelineBundle(work.path)
})
afterAll(async () => work.remove())

describe('agentevalops report', () => {
  it("re-renders the bundle's own report.md byte for byte on stdout, exit 0", async () => {
    const own = await readFile(join(bundle, 'report.md'), 'utf8')
    expect(own).toMatch(/^# Run 01a22a00/)
    expect(own).toContain('policy_violation')
    const { code, lines, stderr } = await runCli('report', bundle)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    // Each io.out call is one line on stdout.
    expect(lines.map((line) => `${line}\n`).join('')).toBe(own)
    // --format markdown is the default, named.
    for (const flag of ['--format', '-f']) {
      const named = await runCli('report', bundle, flag, 'markdown')
      expect(named.code).toBe(0)
      expect(named.lines.map((line) => `${line}\n`).join('')).toBe(own)
    }
  })

  it('renders report.html (--format html) with every trial and every trace event of the bundle', async () => {
    const out = join(work.path, 'out', 'report.html')
    const { code, stderr } = await runCli('report', bundle, '--format', 'html', '-o', out)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const html = await readFile(out, 'utf8')
    expect(html).toMatch(/^<!doctype html>/)
    expect(html).toContain('Content-Security-Policy')
    expect(html).toMatch(/<script type="application\/json" id="data">/)
    // The trials are the rows blocks' rows.
    const trials = [
      ...html.matchAll(/<script type="application\/json" class="rows">([\s\S]*?)<\/script>/g),
    ].flatMap((block) => JSON.parse(block[1]!) as { events: unknown[] }[])
    const scores = JSON.parse(await readFile(join(bundle, 'scores.json'), 'utf8')) as { trials: unknown[] }
    expect(trials).toHaveLength(scores.trials.length)
    const events = (await readFile(join(bundle, 'traces.jsonl'), 'utf8')).trim().split('\n')
    expect(trials.reduce((n, t) => n + t.events.length, 0)).toBe(events.length)
  })

  it('exits 2 for an unknown --format, naming the known reporters', async () => {
    const { code, stdout, stderr } = await runCli('report', bundle, '--format', 'nope')
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain('unknown --format "nope" (known reporters: html, markdown).')
    const close = await runCli('report', bundle, '--format', 'markdwn')
    expect(close.code).toBe(2)
    expect(close.stderr).toContain('Did you mean "markdown"?')
    expect((await runCli('report', bundle, '--format', '')).code).toBe(2)
  })

  it("renders with a reporter of an adapter package among the --dir project's dependencies", async () => {
    const project = join(work.path, 'project')
    const pkgDir = join(project, 'node_modules', 'acme-csv')
    await mkdir(pkgDir, { recursive: true })
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'my-evals', version: '1.0.0', devDependencies: { 'acme-csv': '1.0.0' } }),
    )
    await writeFile(
      join(pkgDir, 'package.json'),
      JSON.stringify({
        name: 'acme-csv',
        version: '1.2.0',
        type: 'module',
        agentevalops: { adapters: './adapters.js' },
      }),
    )
    await writeFile(
      join(pkgDir, 'adapters.js'),
      [
        'export function register(registry) {',
        "  registry.register('reporter', 'acme-csv:csv', () => ({",
        "    format: 'report.csv',",
        "    render: ({ metadata, trials }) => ['run,task,trial,outcome', ...trials.map((t) => [metadata.runId, t.taskId, t.trial, t.outcome].join(','))].join('\\n') + '\\n',",
        '  }))',
        '}',
        '',
      ].join('\n'),
    )
    const { code, stdout, stderr } = await runCli(
      'report',
      bundle,
      '--format',
      'acme-csv:csv',
      '--dir',
      project,
    )
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const lines = stdout.split('\n')
    expect(lines[0]).toBe('run,task,trial,outcome')
    expect(lines).toHaveLength(9)
    expect(lines).toContain(`${RUN_ID},${TOY_TASK_IDS.forbiddenTool},1,policy_violation`)

    const output = join(work.path, 'out', 'report.csv')
    const written = await runCli('report', bundle, '-f', 'acme-csv:csv', '--dir', project, '-o', output)
    expect(written.code).toBe(0)
    expect(await readFile(output, 'utf8')).toBe(`${lines.join('\n')}\n`)

    // Without the project, the package's reporter is unknown, and the hint says where it comes from.
    const elsewhere = await runCli('report', bundle, '--format', 'acme-csv:csv')
    expect(elsewhere.code).toBe(2)
    expect(elsewhere.stderr).toContain('(known reporters: html, markdown)')
    expect(elsewhere.stderr).toContain('npm install --save-dev acme-csv')
    // doctor lists the reporter kind, built-in and the package's.
    const doctor = await runCli('doctor', '--dir', project, '--output', join(work.path, 'doctor-runs'))
    expect(doctor.stdout).toMatch(
      /^ {2}reporter +acme-csv:csv +package acme-csv@1\.2\.0\n +html +built-in\n +markdown +built-in$/m,
    )
  })

  it('writes --output, refuses to overwrite it without --force, replaces it with --force', async () => {
    const own = await readFile(join(bundle, 'report.md'), 'utf8')
    const output = join(work.path, 'out', 'nested', 'report.md')
    const first = await runCli('report', bundle, '--output', output)
    expect(first.code).toBe(0)
    expect(first.lines).toEqual([`wrote ${output} (report of run ${RUN_ID})`])
    expect(await readFile(output, 'utf8')).toBe(own)

    await writeFile(output, 'keep me\n')
    const again = await runCli('report', bundle, '-o', output)
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('already exists; pass --force to overwrite it')
    expect(await readFile(output, 'utf8')).toBe('keep me\n')

    const forced = await runCli('report', bundle, '--output', output, '--force')
    expect(forced.code).toBe(0)
    expect(await readFile(output, 'utf8')).toBe(own)
  })

  it('refuses an --output inside the bundle folder, even through a symlink, and leaves the bundle valid', async () => {
    const inside = await runCli('report', bundle, '--output', join(bundle, 'report-again.md'))
    expect(inside.code).toBe(2)
    expect(inside.stderr).toMatch(/is inside the bundle .*would break its manifest/)
    const own = await runCli('report', bundle, '--output', join(bundle, 'report.md'), '--force')
    expect(own.code).toBe(2)
    const link = join(work.path, 'link-to-bundle')
    await symlink(bundle, link, 'dir')
    const viaLink = await runCli('report', bundle, '--output', join(link, 'sub', 'r.md'))
    expect(viaLink.code).toBe(2)
    expect(existsSync(join(bundle, 'sub'))).toBe(false)
    expect(existsSync(join(bundle, 'report-again.md'))).toBe(false)
    expect((await runCli('validate-bundle', bundle)).code).toBe(0)
  })

  it('exits 1 for an invalid bundle, listing the findings and suggesting validate-bundle', async () => {
    const damaged = await copyBundle(bundle, join(work.path, 'damaged'))
    await writeFile(join(damaged, 'scores.json'), '{"broken": true}\n')
    const { code, stdout, stderr } = await runCli('report', damaged)
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain('scores.json: ')
    expect(stderr).toContain(`Run 'agentevalops validate-bundle ${damaged}' for every finding`)
  })

  it('rewrites an unreadable manifest over intact records, re-rendering report.md, which nothing vouched for', async () => {
    const damaged = await copyBundle(bundle, join(work.path, 'no-manifest'))
    const own = await readFile(join(damaged, 'report.md'), 'utf8')
    await writeFile(join(damaged, 'manifest.json'), '{ not json\n')
    const { code, lines, stderr } = await runCli('report', damaged)
    expect(code).toBe(0)
    expect(stderr).toBe('agentevalops report: report.md: replaced (manifest.json unreadable)')
    expect(lines.map((line) => `${line}\n`).join('')).toBe(own)
    expect((await runCli('validate-bundle', damaged)).code).toBe(0)
  })

  it('refuses a bundle with a file no manifest lists, and does not bless it', async () => {
    const damaged = await copyBundle(bundle, join(work.path, 'extra-file'))
    await writeFile(join(damaged, 'notes.txt'), 'who put this here\n')
    await writeFile(join(damaged, 'report.md'), 'damaged\n')
    const { code, stderr } = await runCli('report', damaged)
    expect(code).toBe(1)
    expect(stderr).toContain('cannot be re-rendered: notes.txt is damaged')
    expect(await readFile(join(damaged, 'report.md'), 'utf8')).toBe('damaged\n')
  })

  it('exits 1 for a folder that is not there, 2 for usage errors', async () => {
    const missing = await runCli('report', join(work.path, 'nope'))
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/no bundle folder at/)
    expect((await runCli('report')).code).toBe(2)
    expect((await runCli('report', bundle, bundle)).code).toBe(2)
    const unknown = await runCli('report', bundle, '--html')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/Unknown option '--html'/)
    const folder = join(work.path, 'a-folder')
    await mkdir(folder)
    expect((await runCli('report', bundle, '--output', folder, '--force')).code).toBe(2)
  })

  it('renders the fixture bundle too (a report.md that is not a rendering: the output is the fresh one)', async () => {
    const fixtureWork = await tempDir('aeo-report-fixture-')
    try {
      const dir = await buildBundle(fixtureWork.path)
      const { code, stdout } = await runCli('report', dir)
      expect(code).toBe(0)
      expect(stdout).toMatch(/^# Run 0190f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b\n/)
      expect(stdout).toContain('**Pass rate: ')
      expect(await readFile(join(dir, 'report.md'), 'utf8')).toBe('# Run fixture\n')
    } finally {
      await fixtureWork.remove()
    }
  })
})
