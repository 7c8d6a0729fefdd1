import { existsSync } from 'node:fs'
import { readdir, rm } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { mergeBundles } from '../../../reporters/merge-bundles.ts'
import { gateLine } from '../../bundles/index.ts'
import { LocalBackend } from '../../cloud/index.ts'
import {
  errorMessage,
  isAgentEvalOpsError,
  newRunId,
  type JobHandle,
  type JobStatus,
} from '../../core/index.ts'
import { cliCommand } from '../cli-entry.ts'
import type { CliIO } from '../io.ts'
import type { RunArgs } from './run.ts'

/** The variable the shards of one run share, so their bundles carry one run group (see docs/scale-out.md). */
export const RUN_KEY_ENV = 'AGENTEVALOPS_RUN_KEY'

/** Where `run --parallel` keeps its shards' runs folders and logs: a dot-folder of the runs folder. */
export const PARALLEL_DIR = '.parallel'

export interface ParallelRunInput {
  args: RunArgs
  /** The --parallel count. */
  count: number
  cwd: string
  /** The runs folder the merged bundle goes into (absolute). */
  runsDir: string
  /** The configs' run_id, when they name one: the merged bundle's id. */
  runId: string | null
  io: CliIO
  /** The environment the shards start from. */
  env: NodeJS.ProcessEnv
}

interface ShardJob {
  index: number
  label: string
  outputDir: string
  logFile: string
  handle: JobHandle
}

/** A progress line of the progress reporter (`agentevalops: 12/40 trials · …`), relayed per shard. */
const PROGRESS_LINE = /^agentevalops: (\d+(?:\/\d+\+?)? trials? · .*)$/

type Signal = 'SIGINT' | 'SIGTERM'
const SIGNALS: readonly Signal[] = ['SIGINT', 'SIGTERM']

/**
 * `agentevalops run … --parallel N`: N shard processes of the run (`run … --shard i/N`, one run key) through the
 * local CloudBackend, each writing its bundle into its own runs folder and its output into its own log; once all
 * have ended, their bundles are merged into one bundle of the runs folder. A shard without a bundle fails the run
 * and the others' bundles stay for a rerun of that shard alone; Ctrl+C / SIGTERM cancels every shard.
 */
export async function runParallel(input: ParallelRunInput): Promise<number> {
  const { args, count, cwd, io } = input
  const id = newRunId()
  const home = join(input.runsDir, PARALLEL_DIR, id)
  const runKey = input.env[RUN_KEY_ENV] || `parallel-${id}`
  const shown = (path: string): string => displayPath(cwd, path)

  const backend = new LocalBackend({
    env: input.env,
    onLine: (handle, line) => {
      const progress = PROGRESS_LINE.exec(line)
      const shard = /^shard-(\d+)-of-(\d+)$/.exec(handle.name)
      if (progress && shard) io.out(`agentevalops run: shard ${shard[1]}/${shard[2]}: ${progress[1]}`)
    },
  })
  const jobs: ShardJob[] = []
  let signals = 0
  const onSignal = (signal: Signal): void => {
    signals++
    if (signals === 1) {
      io.err(
        `\nagentevalops run: ${signal}: cancelling ${count} shard${count === 1 ? '' : 's'}; each writes the bundle of its finished trials. Press Ctrl+C again to stop them at once.`,
      )
      for (const job of jobs) void backend.cancel(job.handle)
      return
    }
    io.err(`agentevalops run: ${signal} again: killing every shard.`)
    for (const job of jobs) backend.kill(job.handle)
  }
  for (const s of SIGNALS) process.on(s, onSignal)

  try {
    const command = cliCommand()
    io.out(
      `agentevalops run: ${count} shard${count === 1 ? '' : 's'} in parallel on this machine; logs in ${shown(home)}`,
    )
    for (let index = 1; index <= count && signals === 0; index++) {
      const name = `shard-${index}-of-${count}`
      const outputDir = join(home, name)
      const logFile = join(home, `${name}.log`)
      const handle = await backend.submit({
        name,
        command: [...command, 'run', ...shardArgs(args, cwd, `${index}/${count}`, outputDir)],
        cwd,
        env: { [RUN_KEY_ENV]: runKey },
        logFile,
        outputDir,
      })
      jobs.push({ index, label: `${index}/${count}`, outputDir, logFile, handle })
    }
    const ended = await Promise.all(
      jobs.map(async (job) => {
        const status = await backend.wait(job.handle)
        const bundle = await onlyBundle(job.outputDir)
        io.out(`agentevalops run: shard ${job.label}: ${describeEnd(status, bundle !== null)}`)
        return { job, status, bundle }
      }),
    )

    if (signals > 0) {
      io.err(
        `agentevalops run: cancelled; the shards' bundles (status interrupted) are in ${shown(home)}, not merged.`,
      )
      return 130
    }
    const missing = ended.filter((e) => e.bundle === null)
    if (missing.length > 0) {
      for (const { job, status } of missing)
        io.err(
          `agentevalops run: shard ${job.label} failed (${exitText(status)}) and wrote no bundle; its log: ${shown(job.logFile)}`,
        )
      const kept = ended.filter((e) => e.bundle !== null)
      if (kept.length > 0)
        io.err(`agentevalops run: the bundles of the other shards are kept in ${shown(home)}.`)
      for (const { job } of missing)
        io.err(
          `agentevalops run: rerun shard ${job.label} with: ${RUN_KEY_ENV}=${runKey} agentevalops run ${shardArgs(args, cwd, job.label, job.outputDir, shown).join(' ')}`,
        )
      io.err(
        `agentevalops run: then merge them with: agentevalops merge ${ended.map((e) => shown(e.job.outputDir)).join(' ')}${input.args.output === undefined ? '' : ` --output ${shown(input.runsDir)}`}`,
      )
      return 1
    }

    const dirs = ended.map((e) => e.bundle!)
    let merged
    try {
      merged = await mergeBundles({
        dirs,
        runsDir: input.runsDir,
        ...(input.runId === null ? {} : { runId: input.runId }),
      })
    } catch (e) {
      io.err(`agentevalops run: the shards' bundles could not be merged: ${errorMessage(e)}`)
      io.err(`agentevalops run: they are kept in ${shown(home)}.`)
      if (isAgentEvalOpsError(e)) return 1
      throw e
    }
    for (const note of merged.notes) io.err(`agentevalops run: note: ${note}`)
    // The merged bundle holds everything of the shards' bundles; their logs stay beside it for reading.
    for (const e of ended) await rm(e.job.outputDir, { recursive: true, force: true, maxRetries: 3 })
    io.out(
      `agentevalops run: merged ${merged.shards} shard${merged.shards === 1 ? '' : 's'} (${merged.trials} trial${merged.trials === 1 ? '' : 's'}) into ${shown(merged.dir)}`,
    )
    for (const verdict of merged.gates)
      if (verdict.met) io.out(`agentevalops run: ${gateLine(verdict)}`)
      else io.err(`agentevalops run: ${gateLine(verdict)}`)
    const failed = ended.filter((e) => e.status.exitCode !== 0)
    for (const { job } of failed)
      io.err(
        `agentevalops run: shard ${job.label} had failing trials or gates; its log: ${shown(job.logFile)}`,
      )
    return failed.length > 0 || merged.gates.some((v) => !v.met) ? 1 : 0
  } finally {
    for (const s of SIGNALS) process.off(s, onSignal)
    // Whatever happened here, no shard outlives the run.
    await Promise.all(jobs.map((job) => backend.cancel(job.handle)))
  }
}

/**
 * The arguments of one shard's `agentevalops run`: the run's own, less what the parent does for all shards, plus
 * the shard and its runs folder. `show` renders the paths (absolute for the child, as the user sees them in a hint).
 */
export function shardArgs(
  args: RunArgs,
  cwd: string,
  shard: string,
  outputDir: string,
  show: (path: string) => string = (path) => path,
): string[] {
  const out = [
    ...args.configs.map((file) => show(resolve(cwd, file))),
    '--shard',
    shard,
    '--output',
    show(outputDir),
  ]
  if (args.testNamePattern !== undefined) out.push('-t', args.testNamePattern)
  if (args.passWithNoTests) out.push('--passWithNoTests')
  if (args.trials !== undefined) out.push('--trials', String(args.trials))
  if (args.concurrency !== undefined) out.push('--concurrency', String(args.concurrency))
  for (const [key, value] of Object.entries(args.labels)) out.push('--label', `${key}=${value}`)
  for (const reporter of args.reporters) out.push('--reporter', reporter)
  if (args.vitestConfig !== undefined) out.push('--vitest-config', show(resolve(cwd, args.vitestConfig)))
  if (args.project !== undefined) out.push('--project', args.project)
  return out
}

/** The one sealed bundle (a folder with a manifest) a shard wrote into its runs folder, or null. */
async function onlyBundle(outputDir: string): Promise<string | null> {
  const entries = await readdir(outputDir, { withFileTypes: true }).catch(() => [])
  const bundles = entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => join(outputDir, e.name))
    .filter((dir) => existsSync(join(dir, 'manifest.json')))
  return bundles.length === 1 ? bundles[0]! : null
}

function exitText(status: JobStatus): string {
  return status.exitCode !== null ? `exit ${status.exitCode}` : `killed by ${status.signal ?? 'a signal'}`
}

function describeEnd(status: JobStatus, bundle: boolean): string {
  const seconds = status.finishedAt
    ? ` in ${((Date.parse(status.finishedAt) - Date.parse(status.startedAt)) / 1000).toFixed(1)} s`
    : ''
  if (status.state === 'succeeded') return `done${seconds}`
  if (status.state === 'cancelled')
    return `cancelled (${exitText(status)})${bundle ? ', bundle written' : ''}`
  return `${exitText(status)}${seconds}${bundle ? ', bundle written' : ', no bundle'}`
}

function displayPath(cwd: string, path: string): string {
  const rel = relative(cwd, path)
  return rel && !rel.startsWith('..') ? rel : path
}
