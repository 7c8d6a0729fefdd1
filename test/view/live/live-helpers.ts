// Helpers of the live-view tests: staging folders written by hand (as the bundle reporter and its workers write
// them), and the events a LiveRuns emits, collected and waited for with bounded waits.
import { spawn } from 'node:child_process'
import { appendFileSync } from 'node:fs'
import { appendFile, mkdir, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import {
  RUN_HEADER_FILE,
  RunHeader,
  workerLogPath,
  type StagedBenchmark,
  type TrialRecord,
} from '../../../src/core/index.ts'
import type { LiveEvent } from '../../../src/view/api.ts'
import type { LiveEventSource } from '../../../src/view/live/index.ts'
import { pollUntil } from '../../e2e/helpers.ts'
import { scoredTrial, type TrialSpec } from '../../support/trials.ts'

export function header(runId: string, overrides: Partial<RunHeader> = {}): RunHeader {
  return RunHeader.parse({
    v: 1,
    runId,
    startedAt: new Date().toISOString(),
    pid: process.pid,
    hostname: hostname(),
    vitestProject: 'evals',
    labels: { branch: 'live-test' },
    configHash: null,
    testNamePattern: null,
    shard: null,
    vitest: '4.1.12',
    node: process.version,
    sdkVersion: '0.1.0',
    replayCommand: 'npx vitest run --project evals',
    ...overrides,
  })
}

/** A staging folder as a run writes it: the header, then one worker log that lines are appended to. */
export class HandStaging {
  readonly dir: string
  readonly log: string

  constructor(runsDir: string, name: string) {
    this.dir = join(runsDir, '.staging', name)
    this.log = workerLogPath(this.dir, 4242, 0)
  }

  async writeHeader(value: RunHeader): Promise<void> {
    await mkdir(join(this.dir, 'logs'), { recursive: true })
    await writeFile(join(this.dir, RUN_HEADER_FILE), `${JSON.stringify(value, null, 2)}\n`)
  }

  async benchmark(id: string, runner = 'mock-scripted'): Promise<void> {
    const line: StagedBenchmark = {
      benchmark: { id, version: '1', datasetChecksum: 'a'.repeat(64) },
      runner: { name: runner, kind: 'mock', config: {} },
    }
    await this.append(`${JSON.stringify({ benchmark: line })}\n`)
  }

  /** A finished trial: some events, then its record (what a worker logs at a trial's end). */
  async trial(spec: TrialSpec, runId: string): Promise<TrialRecord> {
    const { record, lines } = this.trialLines(spec, runId)
    await this.append(lines)
    return record
  }

  /** As trial(), written synchronously: nothing else of the test's process runs in between. */
  trialSync(spec: TrialSpec, runId: string): TrialRecord {
    const { record, lines } = this.trialLines(spec, runId)
    appendFileSync(this.log, lines)
    return record
  }

  private trialLines(spec: TrialSpec, runId: string): { record: TrialRecord; lines: string } {
    const record = { ...scoredTrial(spec), runId }
    const event = {
      runId,
      benchmark: record.benchmark.id,
      taskId: record.taskId,
      trial: record.trial,
      step: 0,
      ts: new Date().toISOString(),
      kind: 'agent.terminal',
      payload: { terminatedBy: 'completed' },
      costDeltaUsd: 0,
      tokensDelta: 0,
      spanId: 'span',
    }
    return { record, lines: `${JSON.stringify({ event })}\n${JSON.stringify({ record })}\n` }
  }

  append(text: string): Promise<void> {
    return appendFile(this.log, text)
  }
}

/** The pid of a process that has exited (and been reaped): a dead run's header names one like it. */
export async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', () => resolve())
  })
  if (child.pid === undefined) throw new Error('the short-lived child got no pid')
  return child.pid
}

/** Every event of a source from now on, in order, and bounded waits for the ones a test expects. */
export class EventLog {
  readonly events: LiveEvent[] = []
  readonly unsubscribe: () => void

  constructor(source: LiveEventSource) {
    this.unsubscribe = source.subscribe((event) => this.events.push(event))
  }

  /** The events of run `runId`, in order. */
  of(runId: string): LiveEvent[] {
    return this.events.filter((e) => e.type !== 'runs-changed' && e.run.runId === runId)
  }

  /** Waits (bounded) for an event that satisfies `match`, and returns it. */
  waitFor(match: (event: LiveEvent) => boolean, what: string, timeoutMs = 10_000): Promise<LiveEvent> {
    return pollUntil(async () => this.events.find(match), {
      timeoutMs,
      intervalMs: 20,
      describe: () => `${what}; events so far: ${JSON.stringify(this.events.map(brief))}`,
    })
  }
}

/** An event in a line: its type, run and counts. */
export function brief(event: LiveEvent): string {
  return event.type === 'runs-changed'
    ? event.type
    : `${event.type} ${event.run.runId} ${event.run.passed}/${event.run.trials}`
}
