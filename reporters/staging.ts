import { existsSync } from 'node:fs'
import { lstat, readdir, readFile, rm, rmdir } from 'node:fs/promises'
import { hostname } from 'node:os'
import { dirname, join, posix, relative, sep } from 'node:path'
import { writeDurableFile } from '../src/bundles/durable-file.ts'
import { MANIFEST_FILE, METADATA_FILE, RECORDINGS_FILE, SCORES_FILE } from '../src/bundles/index.ts'
import {
  ARTIFACTS_DIR,
  RUN_HEADER_FILE,
  RunHeader,
  ScoresFile,
  canonicalJson,
  recordingsStagingDir,
  type TrialRecord,
} from '../src/core/index.ts'
import { isProcessAlive } from '../src/engine/index.ts'
import { readStagedRun } from '../src/stores/index.ts'
import type { ExtraFile } from '../src/bundles/index.ts'

export async function writeRunHeader(stagingDir: string, header: RunHeader): Promise<void> {
  await writeDurableFile(
    join(stagingDir, RUN_HEADER_FILE),
    `${JSON.stringify(RunHeader.parse(header), null, 2)}\n`,
  )
}

export interface UnrecoveredStaging {
  dir: string
  runId: string
  /** Finished trials whose records are in it. */
  records: number
  /**
   * Its run's bundle exists (an interrupted one: a worker died): the folder keeps the traces of the trials the
   * bundle lacks, for a resume to finish.
   */
  bundled: boolean
}

/**
 * Staging folders other than `own` whose run is gone: a header naming a process that no longer runs on this host.
 * A folder of a live run (a concurrent `vitest` in the same project) is left alone.
 */
export async function unrecoveredStagings(runsDir: string, own: string): Promise<UnrecoveredStaging[]> {
  const root = join(runsDir, '.staging')
  const found: UnrecoveredStaging[] = []
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (name === own) continue
    const dir = join(root, name)
    const header = await readHeader(dir)
    if (!header || (header.hostname === hostname() && isProcessAlive(header.pid))) continue
    // Killed after its bundle was renamed into place but before its staging was removed: nothing to recover.
    if (await bundledAlready(runsDir, header.runId, dir)) {
      await removeStaging(dir)
      continue
    }
    found.push({
      dir,
      runId: header.runId,
      records: await countRecords(dir),
      // A bundle that lacks some of these trials (a dead worker's run, sealed interrupted): resume finishes it.
      bundled: existsSync(join(runsDir, header.runId, METADATA_FILE)),
    })
  }
  return found
}

/**
 * Whether the run's sealed bundle holds every trial the staging folder has, each as staged (same outcome, usage and
 * event count: a later run under the same fixed run id differs in its timings), so removing the folder loses nothing.
 */
async function bundledAlready(runsDir: string, runId: string, dir: string): Promise<boolean> {
  const bundle = join(runsDir, runId)
  if (!(await exists(join(bundle, MANIFEST_FILE)))) return false
  let scores: ScoresFile
  try {
    const parsed = ScoresFile.safeParse(JSON.parse(await readFile(join(bundle, SCORES_FILE), 'utf8')))
    if (!parsed.success) return false
    scores = parsed.data
  } catch {
    return false
  }
  const fingerprint = (
    t: Pick<TrialRecord, 'benchmark' | 'taskId' | 'trial' | 'outcome' | 'usage' | 'eventCount'>,
  ) => canonicalJson([t.benchmark.id, t.taskId, t.trial, t.outcome, t.usage, t.eventCount])
  const inBundle = new Set(scores.trials.map(fingerprint))
  const staged = await readStagedRun(dir)
  return (
    staged.trials.length > 0 && staged.trials.every((t) => t.finished && inBundle.has(fingerprint(t.record)))
  )
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  )
}

async function readHeader(dir: string): Promise<RunHeader | undefined> {
  try {
    const parsed = RunHeader.safeParse(JSON.parse(await readFile(join(dir, RUN_HEADER_FILE), 'utf8')))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/**
 * The finished trials of a staging folder, as recover reads them: the records of its worker logs (a torn last line is
 * no record) and what older SDKs left, each trial once.
 */
async function countRecords(stagingDir: string): Promise<number> {
  // A retried trial's superseded record is one trial, as recover will bundle it.
  return (await readStagedRun(stagingDir)).trials.filter((t) => t.finished).length
}

/**
 * The model-call recordings the run's trials were answered with (left in staging by each case), as one
 * `recordings.jsonl`, in file-name order so equal runs give equal bytes. None used: no file.
 */
export async function recordingsFile(stagingDir: string): Promise<{ path: string; data: string }[]> {
  const dir = recordingsStagingDir(stagingDir)
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.jsonl')).sort()
  if (names.length === 0) return []
  const parts = await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8')))
  return [{ path: RECORDINGS_FILE, data: parts.join('') }]
}

/**
 * The trials' artifacts (a grader's patch.diff), copied into the bundle at the same relative paths their records
 * name, in path order. Only regular files: the artifact store writes nothing else, so anything else is not ours.
 */
export async function artifactFiles(stagingDir: string): Promise<ExtraFile[]> {
  const root = join(stagingDir, ARTIFACTS_DIR)
  const names = await readdir(root, { recursive: true }).catch(() => [] as string[])
  const files: ExtraFile[] = []
  for (const name of names.sort()) {
    const sourcePath = join(root, name)
    if (!(await lstat(sourcePath)).isFile()) continue
    files.push({
      path: posix.join(ARTIFACTS_DIR, relative(root, sourcePath).split(sep).join('/')),
      sourcePath,
    })
  }
  return files
}

/** Removes the run's staging folder, and the shared `.staging` above it once no other run uses it. */
export async function removeStaging(stagingDir: string): Promise<void> {
  await rm(stagingDir, { recursive: true, force: true })
  await rmdir(dirname(stagingDir)).catch(() => undefined)
}
