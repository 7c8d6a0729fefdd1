import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import {
  BUNDLE_FORMAT_VERSION,
  type BenchmarkInfo,
  type RunMetadata,
  type RunSummary,
  type ScoredTrial,
  type ScoresFile,
  type TraceEvent,
  type TrialRecord,
} from '../../src/core/index.ts'
import { manifestForDir, writeBundle, type WriteBundleInput } from '../../src/bundles/index.ts'
import { DEFAULT_SUMMARY_SETTINGS, summarizeTrials } from '../../src/scorers/index.ts'

/** Small, valid records for bundle, report and CLI tests: 3 tasks × 2 trials, one failed, one policy violation. */
export const RUN_ID = '0190f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b'
export const FIXTURE_BENCHMARK: BenchmarkInfo = {
  id: 'toy',
  version: '1.0.0',
  datasetChecksum: 'a'.repeat(64),
}
const RUNNER = { name: 'mock-scripted', kind: 'mock', config: {} }
const TS = '2025-01-02T03:04:05.000Z'

export interface FixtureOptions {
  runId?: string
  tasks?: readonly string[]
  trials?: number
  /** Default FIXTURE_BENCHMARK; for makeMetadata, every benchmark of the run. */
  benchmarks?: readonly BenchmarkInfo[]
}

export function taskIds(options: FixtureOptions = {}): readonly string[] {
  return options.tasks ?? ['task-0', 'task-1', 'task-2']
}

export function makeTrials(options: FixtureOptions = {}): TrialRecord[] {
  const runId = options.runId ?? RUN_ID
  const records: TrialRecord[] = []
  for (const benchmark of options.benchmarks ?? [FIXTURE_BENCHMARK]) {
    for (const taskId of taskIds(options)) {
      for (let trial = 0; trial < (options.trials ?? 2); trial++) {
        const failed = taskId === 'task-2' && trial === 1
        const violated = taskId === 'task-1' && trial === 1
        records.push({
          runId,
          benchmark,
          taskId,
          taskChecksum: 'b'.repeat(64),
          trial,
          outcome: failed ? 'failed' : violated ? 'policy_violation' : 'passed',
          passed: !failed && !violated,
          result: {
            success: !failed,
            finalAnswer: failed ? '5' : '4',
            artifacts: [],
            error: null,
            totalCostUsd: 0.0125,
            totalTokens: 120,
            turns: 2,
            wallSeconds: 1.5,
            terminatedBy: 'completed',
          },
          scores: [
            {
              evaluatorId: 'exact-match',
              kind: 'deterministic',
              score: failed ? 0 : 1,
              passed: !failed,
              costUsd: 0,
              latencyMs: 1,
              explanation: failed ? 'expected "4", got "5"' : 'exact match',
              citations: [4],
              findings: [],
              error: null,
            },
          ],
          verdicts: [
            {
              checkerId: 'tool-policy',
              verdict: violated ? 'FAIL' : 'PASS',
              findings: violated ? [{ message: 'tool rm is denied', severity: 'FAIL', citations: [2] }] : [],
            },
          ],
          usage: { tokens: 120, costUsd: 0.0125, wallSeconds: 1.5, turns: 2 },
          runner: RUNNER,
          tracePath: `traces/${benchmark.id}/${taskId}.t${trial}.jsonl`,
          eventCount: 7,
          warnings: [],
          labels: { category: taskId === 'task-0' ? 'arithmetic' : 'tools' },
          keys: null,
          reusedFrom: null,
        })
      }
    }
  }
  return records
}

/** The fields every event of `trial` shares, at `step`: no cost, no tokens, a span id of its own. */
export function eventBase(trial: TrialRecord, step: number, ts = TS) {
  return {
    runId: trial.runId,
    benchmark: trial.benchmark.id,
    taskId: trial.taskId,
    trial: trial.trial,
    step,
    ts,
    costDeltaUsd: 0,
    tokensDelta: 0,
    spanId: (step + 1).toString(16).padStart(16, '0'),
  }
}

export function makeEvents(trial: TrialRecord): TraceEvent[] {
  const base = (step: number) => eventBase(trial, step)
  const answer = trial.result?.finalAnswer ?? ''
  return [
    { ...base(0), kind: 'agent.plan', payload: { text: 'add the numbers' } },
    {
      ...base(1),
      kind: 'agent.model_call',
      payload: { model: 'mock', inputTokens: 50, outputTokens: 10 },
      tokensDelta: 60,
      costDeltaUsd: 0.006,
    },
    { ...base(2), kind: 'agent.tool_call', payload: { tool: 'calc', args: { expr: '2+2' } } },
    { ...base(3), kind: 'agent.tool_result', payload: { tool: 'calc', result: 4 } },
    { ...base(4), kind: 'agent.final_answer', payload: { answer } },
    {
      ...base(5),
      kind: 'agent.terminal',
      payload: { terminatedBy: 'completed', success: true, error: null },
    },
    { ...base(6), kind: 'evaluator.score', payload: { evaluatorId: 'exact-match', score: 1, passed: true } },
  ]
}

export function makeSummary(trials: readonly TrialRecord[]): RunSummary {
  return summarizeTrials(trials, DEFAULT_SUMMARY_SETTINGS)
}

export function makeMetadata(trials: readonly ScoredTrial[], options: FixtureOptions = {}): RunMetadata {
  const benchmarks = options.benchmarks ?? [FIXTURE_BENCHMARK]
  return {
    schemaVersion: BUNDLE_FORMAT_VERSION,
    runId: options.runId ?? RUN_ID,
    status: 'complete',
    labels: { suite: 'fixture' },
    target: RUNNER,
    targets: [RUNNER],
    benchmark: benchmarks[0]!,
    benchmarks: [...benchmarks],
    startedAt: TS,
    finishedAt: '2025-01-02T03:04:15.000Z',
    durationSec: 10,
    sdkVersion: '0.1.0',
    git: { sha: 'c'.repeat(40), dirty: false },
    node: 'v20.19.0',
    vitest: '4.1.12',
    configHash: 'd'.repeat(64),
    seed: null,
    shard: null,
    vitestProject: 'evals',
    testNamePattern: null,
    trialCount: trials.length,
    resumedFrom: [],
  }
}

export function toJsonl(events: readonly TraceEvent[]): string {
  return events.map((e) => `${JSON.stringify(e)}\n`).join('')
}

/** Writes each trial's events to its own file under `root`, as the engine does, and returns the paths in order. */
export async function writeTrialTraceFiles(root: string, trials: readonly TrialRecord[]): Promise<string[]> {
  const paths: string[] = []
  for (const trial of trials) {
    const path = join(root, trial.tracePath)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, toJsonl(makeEvents(trial)))
    paths.push(path)
  }
  return paths
}

export type FileBundleInput = Extract<WriteBundleInput, { traceFiles: readonly string[] }>
export type BundleInputOverrides = Partial<Omit<FileBundleInput, 'traceFiles'>>

/** A complete writeBundle input whose traces come from per-trial files under `workDir/src`. */
export async function bundleInput(
  workDir: string,
  options: FixtureOptions = {},
  overrides: BundleInputOverrides = {},
): Promise<FileBundleInput> {
  const trials = makeTrials(options)
  const summary = makeSummary(trials)
  const metadata = makeMetadata(trials, options)
  const traceFiles = await writeTrialTraceFiles(join(workDir, 'src'), trials)
  return {
    runsDir: join(workDir, 'runs'),
    metadata,
    trials,
    summary,
    traceFiles,
    reports: { 'report.md': '# Run fixture\n' },
    replayCommand: 'npx vitest run --project evals',
    extraFiles: [{ path: 'artifacts/task-0/answer.txt', data: '4\n' }],
    createdAt: '2025-01-02T03:04:16.000Z',
    ...overrides,
  }
}

/**
 * A run of two benchmarks with the same task ids, `toy` and `toy@weak` (as HumanEval under two runners): the weak
 * one's trials answer "weak", so that whose events are whose shows.
 */
export async function sharedTaskIdsInput(
  workDir: string,
  options: Omit<FixtureOptions, 'benchmarks'> = {},
): Promise<FileBundleInput> {
  const weak = { ...FIXTURE_BENCHMARK, id: 'toy@weak' }
  const base = await bundleInput(workDir, { ...options, benchmarks: [FIXTURE_BENCHMARK, weak] })
  const trials = base.trials.map((t) =>
    t.benchmark.id === weak.id ? { ...t, result: { ...t.result!, finalAnswer: 'weak' } } : t,
  )
  const traceFiles = await writeTrialTraceFiles(join(workDir, 'src'), trials)
  return { ...base, trials, summary: makeSummary(trials), traceFiles }
}

export async function buildBundle(workDir: string, options: FixtureOptions = {}): Promise<string> {
  return writeBundle(await bundleInput(workDir, options))
}

export async function tempDir(prefix = 'aeo-test-'): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix))
  return { path, remove: () => rm(path, { recursive: true, force: true }) }
}

export async function copyBundle(from: string, to: string): Promise<string> {
  await cp(from, to, { recursive: true })
  return to
}

/** Makes a tampered bundle consistent again at the checksum level, so only deeper checks can catch the change. */
export async function restampManifest(dir: string, runId = RUN_ID): Promise<void> {
  const manifest = await manifestForDir(dir, runId, '2025-01-02T03:04:16.000Z')
  await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
}

/** Rewrites scores.json through `edit` (the manifest is left as it is: re-stamp it to hide the edit). */
export async function editScores(dir: string, edit: (scores: ScoresFile) => void): Promise<void> {
  const path = join(dir, 'scores.json')
  const scores = JSON.parse(await readFile(path, 'utf8')) as ScoresFile
  edit(scores)
  await writeFile(path, `${JSON.stringify(scores, null, 2)}\n`)
}

export async function readTraceLines(dir: string): Promise<string[]> {
  const text = await readFile(join(dir, 'traces.jsonl'), 'utf8')
  return text.split('\n').filter((line) => line !== '')
}

export async function writeTraceLines(dir: string, lines: readonly string[]): Promise<void> {
  await writeFile(join(dir, 'traces.jsonl'), lines.map((l) => `${l}\n`).join(''))
}

/** Rewrites traces.jsonl as formats 1 and 2 wrote it, with events that do not name their benchmark. */
export async function dropEventBenchmarks(dir: string): Promise<void> {
  const lines = await readTraceLines(dir)
  await writeTraceLines(
    dir,
    lines.map((line) => {
      const { benchmark: _benchmark, ...event } = JSON.parse(line) as Record<string, unknown>
      return JSON.stringify(event)
    }),
  )
}

export async function flipByte(path: string, position: number): Promise<void> {
  const bytes = await readFile(path)
  bytes[position] = (bytes[position] ?? 0) ^ 0x01
  await writeFile(path, bytes)
}
