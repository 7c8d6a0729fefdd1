import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import {
  artifactFiles,
  recordingsFile,
  removeStaging,
  unrecoveredStagings,
} from '../../../reporters/staging.ts'
import { derivedRunFiles } from '../../../reporters/derived-files.ts'
import { METADATA_FILE, runTargets, writeBundle } from '../../bundles/index.ts'
import {
  AgentEvalOpsError,
  BUNDLE_FORMAT_VERSION,
  checksumOf,
  isAgentEvalOpsError,
  RUN_HEADER_FILE,
  WORKER_LOG_DIR,
  sdkVersion,
  RunMetadata,
  type TraceEvent,
} from '../../core/index.ts'
import { renderMarkdownReport } from '../../reports/index.ts'
import { terminalText } from '../../reports/escape-terminal.ts'
import { DEFAULT_SUMMARY_SETTINGS, summarizeTrials } from '../../scorers/index.ts'
import { readStagedRun, stagedTrialEvents, type StagedRun } from '../../stores/index.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'
import type { CliIO } from '../io.ts'

export const recoverCommand: Command = {
  name: 'recover',
  summary:
    'Turn the staging folder of a run that died (SIGKILL, crash) into a bundle with status interrupted',
  usage: '<staging-dir|runs-dir> [options]',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { keep: { type: 'boolean' } })
    if (values.help) {
      io.out(help())
      return 0
    }
    const [target, ...extra] = positionals
    if (target === undefined)
      throw new AgentEvalOpsError('USAGE', 'give a staging folder (runs/.staging/<name>) or a runs folder')
    if (extra.length > 0)
      throw new AgentEvalOpsError('USAGE', `one folder at a time (got ${positionals.length})`)
    if (!existsSync(target)) {
      io.err(`agentevalops recover: no folder at ${terminalText(target)}`)
      return 1
    }

    const stagings = isStaging(target) ? [target] : (await unrecoveredStagings(target, '')).map((s) => s.dir)
    if (stagings.length === 0) {
      io.out(
        `nothing to recover in ${terminalText(target)}: no staging folder of a run that ended without its bundle`,
      )
      return 0
    }
    let failed = 0
    for (const dir of stagings) if (!(await recoverOne(dir, values.keep === true, io))) failed++
    return failed > 0 ? 1 : 0
  },
}

function isStaging(dir: string): boolean {
  return (
    existsSync(join(dir, RUN_HEADER_FILE)) ||
    existsSync(join(dir, WORKER_LOG_DIR)) ||
    existsSync(join(dir, 'traces'))
  )
}

async function recoverOne(dir: string, keep: boolean, io: CliIO): Promise<boolean> {
  const staged = await readStagedRun(dir)
  for (const warning of staged.warnings) io.err(`agentevalops recover: warning: ${terminalText(warning)}`)
  if (staged.trials.length === 0) {
    io.err(`agentevalops recover: ${terminalText(dir)} holds no trial to recover; it is left as it is.`)
    return false
  }
  // Staging folders live in <runsDir>/.staging/<name>: the bundle goes beside the run's other bundles.
  const runsDir = basename(dirname(dir)) === '.staging' ? dirname(dirname(dir)) : dirname(dir)
  const trials = staged.trials.map((t) => t.record)
  const settings = staged.header?.statistics ?? DEFAULT_SUMMARY_SETTINGS
  const summary = summarizeTrials(trials, settings)
  const metadata = metadataOf(staged, settings.bootstrap.seed)
  const derived = derivedRunFiles({ metadata, trials, summary })
  try {
    const bundle = await writeBundle({
      runsDir,
      metadata,
      trials,
      summary,
      traceEvents: eventsOf(staged),
      reports: { 'report.md': renderMarkdownReport({ metadata, trials, summary }) },
      replayCommand: staged.header?.replayCommand ?? 'npx vitest run --project evals\n',
      extraFiles: [...(await recordingsFile(dir)), ...(await artifactFiles(dir))],
      derivedFiles: derived.derivedFiles,
    })
    // A trial the run's cancel stopped has a record too, with outcome interrupted: it did not finish.
    const cancelled = staged.trials.filter((t) => t.finished && t.record.outcome === 'interrupted').length
    const finished = staged.trials.filter((t) => t.finished).length - cancelled
    io.out(
      `recovered run ${terminalText(staged.runId)}: ${finished} finished trial(s), ${cancelled} cancelled, ` +
        `${trials.length - finished - cancelled} cut short (interrupted) → ${terminalText(relative(process.cwd(), bundle) || bundle)}`,
    )
    const exportWarning = await derived.exportSpans(bundle)
    if (exportWarning !== null) io.err(`agentevalops recover: warning: ${terminalText(exportWarning)}`)
    if (!keep) await removeStaging(dir)
    return true
  } catch (e) {
    if (isAgentEvalOpsError(e, 'BUNDLE_EXISTS')) {
      const bundle = join(runsDir, staged.runId)
      if (await isInterrupted(bundle)) {
        // A worker died under the run: its bundle holds what reported, this folder the traces of what did not.
        const shown = terminalText(relative(process.cwd(), bundle) || bundle)
        io.err(
          `agentevalops recover: run ${terminalText(staged.runId)} has its bundle ${shown}, interrupted; ${terminalText(dir)} keeps the traces ` +
            `of the trials it lacks. Finish the run with: AGENTEVALOPS_RESUME=${shown} npx vitest run ` +
            `(or agentevalops run --resume ${shown}); that removes this folder.`,
        )
        return false
      }
      io.err(
        `agentevalops recover: run ${terminalText(staged.runId)} already has its bundle in ${terminalText(runsDir)}; ${terminalText(dir)} is left over and can be deleted.`,
      )
      return false
    }
    if (isAgentEvalOpsError(e, 'INFRA_FAILURE')) {
      io.err(`agentevalops recover: ${terminalText(e.message)} ${terminalText(dir)} is kept as it was.`)
      return false
    }
    throw e
  }
}

/** Events trial by trial, read as the writer asks for them: a recovered run never has to fit in memory at once. */
async function* eventsOf(staged: StagedRun): AsyncGenerator<TraceEvent> {
  for (const trial of staged.trials) yield* await stagedTrialEvents(staged.dir, trial)
}

function metadataOf(staged: StagedRun, seed: number): RunMetadata {
  const { header } = staged
  const trials = staged.trials.map((t) => t.record)
  const { targets, benchmarks } = runTargets(trials)
  const startedAt = header?.startedAt ?? new Date().toISOString()
  const finishedAt = new Date().toISOString()
  return {
    schemaVersion: BUNDLE_FORMAT_VERSION,
    runId: staged.runId,
    status: 'interrupted',
    labels: { ...header?.labels, recovered: 'true' },
    target: targets[0] ?? null,
    targets,
    benchmark: benchmarks[0] ?? null,
    benchmarks,
    startedAt,
    finishedAt,
    durationSec: Math.max(0, (Date.parse(finishedAt) - Date.parse(startedAt)) / 1000),
    sdkVersion: header?.sdkVersion ?? sdkVersion(),
    git: { sha: null, dirty: null },
    node: header?.node ?? process.version,
    vitest: header?.vitest ?? 'unknown',
    configHash: header?.configHash ?? checksumOf({ recovered: staged.runId, targets, benchmarks }),
    seed,
    shard: header?.shard ?? null,
    vitestProject: header?.vitestProject ?? 'evals',
    testNamePattern: header?.testNamePattern ?? null,
    trialCount: trials.length,
    resumedFrom: [],
    runGroup: header?.runGroup ?? null,
  }
}

async function isInterrupted(bundle: string): Promise<boolean> {
  try {
    const metadata = RunMetadata.safeParse(JSON.parse(await readFile(join(bundle, METADATA_FILE), 'utf8')))
    return metadata.success && metadata.data.status === 'interrupted'
  } catch {
    return false
  }
}

function help(): string {
  return formatCommandHelp(recoverCommand, {
    notes: [
      'A run writes each trial durably into runs/.staging/<name>/ as it goes (its trace, then its record when it\n' +
        'finishes). When the run dies before its bundle is written (SIGKILL, OOM, power), this builds the bundle\n' +
        'from there: status interrupted, every finished trial with its scores, and each unfinished trial as far\n' +
        'as its trace got (outcome interrupted). A torn last line is dropped with a warning.',
      'Given a runs folder, it recovers every staging folder there whose run is no longer running. The staging\n' +
        'folder is removed once its bundle is written (--keep keeps it).',
    ],
    options: [['--keep', 'Keep the staging folder after writing the bundle']],
    exitCodes: [
      [0, 'recovered (or nothing to recover)'],
      [
        1,
        'a folder could not be recovered (no trial in it, its bundle already exists, or the disk refused it)',
      ],
      [2, 'usage error'],
    ],
  })
}
