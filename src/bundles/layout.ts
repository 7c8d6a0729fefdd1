import { AgentEvalOpsError, BUNDLE_FORMAT_VERSION } from '../core/index.ts'
import { quote } from './findings.ts'

export const METADATA_FILE = 'metadata.json'
export const TRACES_FILE = 'traces.jsonl'
export const SCORES_FILE = 'scores.json'
export const REPORT_MD_FILE = 'report.md'
export const REPLAY_COMMAND_FILE = 'replay_command.txt'
export const MANIFEST_FILE = 'manifest.json'
/** The model-call recordings the trials were answered with, when any were (see docs/recordings.md). */
export const RECORDINGS_FILE = 'recordings.jsonl'

/** Files whose content the writer produces itself: callers may not supply them as reports or extra files. */
export const RESERVED_FILES: readonly string[] = [
  METADATA_FILE,
  TRACES_FILE,
  SCORES_FILE,
  REPLAY_COMMAND_FILE,
  MANIFEST_FILE,
]

/**
 * Required files depend on the version a bundle declares, so that a file added in a later format version never
 * makes an older bundle invalid.
 */
export function requiredFiles(formatVersion: number): readonly string[] {
  if (formatVersion >= 1) {
    return [METADATA_FILE, TRACES_FILE, SCORES_FILE, REPORT_MD_FILE, REPLAY_COMMAND_FILE, MANIFEST_FILE]
  }
  return []
}

/** The message a reader gives for a bundle written by a newer SDK: the fix is on the reader's side. */
export function newerVersionMessage(field: string, version: number): string {
  return (
    `${field} ${version} is newer than this agentevalops supports (${BUNDLE_FORMAT_VERSION}): ` +
    'upgrade agentevalops to read this bundle'
  )
}

/**
 * Bundle paths are relative, POSIX-separated and stay inside the bundle: a manifest or caller naming
 * `../x`, `/etc/passwd` or `C:/x` must never make us read or write outside it.
 */
export function isSafeRelativePath(path: string): boolean {
  if (path.length === 0 || path.startsWith('/') || path.includes('\\') || path.includes('\0')) return false
  // A drive letter makes a path absolute on Windows even with forward slashes.
  if (/^[a-zA-Z]:/.test(path)) return false
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
}

/** The run id names the bundle folder, so it must be one plain path segment. */
export function assertSafeRunId(runId: string): void {
  if (!isSafeRelativePath(runId) || runId.includes('/') || runId.startsWith('.')) {
    throw new AgentEvalOpsError(
      'BUNDLE_INVALID',
      `run id ${JSON.stringify(runId)} cannot name a bundle folder.`,
      {
        hint: 'Use a run id without path separators that does not start with a dot.',
      },
    )
  }
}

/** What names a trial: two benchmarks of a run may share task ids, so a task id and trial number alone do not. */
export interface TrialKey {
  /** The benchmark id; '' when unknown (see TrialResolver). */
  benchmark: string
  taskId: string
  trial: number
}

export function recordKey(record: { benchmark: { id: string }; taskId: string; trial: number }): TrialKey {
  return { benchmark: record.benchmark.id, taskId: record.taskId, trial: record.trial }
}

export function trialKeyString(key: TrialKey): string {
  return `${key.benchmark}\u0000${key.taskId}\u0000${key.trial}`
}

export function describeTrial(key: TrialKey): string {
  const benchmark = key.benchmark === '' ? '' : ` (benchmark ${quote(key.benchmark)})`
  return `task ${quote(key.taskId)} trial ${key.trial}${benchmark}`
}

/**
 * The trial of an event, whose benchmark an event of format 1 or 2 does not name: that is then the one benchmark
 * the scores have the task and trial in, or '' when none or several do (a bundle of those formats could not hold
 * two benchmarks with a task id in common).
 */
export class TrialResolver {
  private byTask: Map<string, string> | undefined

  constructor(private readonly trials: readonly TrialKey[] | undefined) {}

  keyOf(item: { benchmark?: string | undefined; taskId: string; trial: number }): TrialKey {
    const benchmark = item.benchmark ?? this.onlyBenchmark(item.taskId, item.trial)
    return { benchmark, taskId: item.taskId, trial: item.trial }
  }

  private onlyBenchmark(taskId: string, trial: number): string {
    if (!this.byTask) {
      this.byTask = new Map()
      for (const t of this.trials ?? []) {
        const key = `${t.taskId}\u0000${t.trial}`
        const seen = this.byTask.get(key)
        this.byTask.set(key, seen === undefined || seen === t.benchmark ? t.benchmark : '')
      }
    }
    return this.byTask.get(`${taskId}\u0000${trial}`) ?? ''
  }
}
