import { copyFile, mkdir } from 'node:fs/promises'
import { dirname, join, posix } from 'node:path'
import {
  ARTIFACTS_DIR,
  isAgentEvalOpsError,
  AgentEvalOpsError,
  type AgentResult,
  type ProvidedRun,
  type TraceEvent,
  type TrialRecord,
} from '../src/core/index.ts'
import { readCassette, type RecordingEntry } from '../src/recording/index.ts'
import type { Bundle } from '../src/bundles/index.ts'
import { agentKeyChanges, scoreKeyChanges, type TrialKeys, type TrialReuse } from '../src/engine/index.ts'

interface Earlier {
  record: TrialRecord
  events: TraceEvent[]
  /** The bundle it is in, whose artifacts it may name. */
  dir: string
  /** The model calls it was answered with (the bundle's recordings.jsonl), which a replay of the new bundle needs. */
  recordings: RecordingEntry[]
}

/** A trial to take over, with what the new bundle must carry of it besides its record and trace. */
export interface Reuse extends TrialReuse {
  earlier: { dir: string; recordings: readonly RecordingEntry[] }
}

// Once per worker and set of bundles: every case of the run asks the same question of the same bundles.
const loaded = new Map<string, Promise<Map<string, Earlier>>>()

/** Outcomes that say nothing about the agent: those trials are run again rather than taken over. */
const NOT_REUSABLE = new Set(['interrupted', 'infra_failure', 'not_evaluated'])

function keyOf(benchmarkId: string, taskId: string, trial: number): string {
  return `${benchmarkId}\u0000${taskId}\u0000${trial}`
}

/**
 * The finished trials of the bundles a run resumes, by benchmark, task and trial; a later bundle's trial wins over
 * an earlier one's, so resuming a resumed run's bundle (and the bundle before it) never loses a trial.
 */
async function earlierTrials(resume: ProvidedRun['resume']): Promise<Map<string, Earlier>> {
  const id = resume.map((r) => r.dir).join('\u0000')
  let found = loaded.get(id)
  if (!found) {
    found = load(resume)
    loaded.set(id, found)
  }
  return found
}

async function load(resume: ProvidedRun['resume']): Promise<Map<string, Earlier>> {
  // Loaded only here: a run that resumes nothing never loads the bundle reader into its workers.
  const { readBundle } = await import('../src/bundles/index.ts')
  const trials = new Map<string, Earlier>()
  for (const { dir, runId } of resume) {
    let bundle: Bundle
    try {
      bundle = await readBundle(dir)
    } catch (e) {
      if (!isAgentEvalOpsError(e)) throw e
      throw new AgentEvalOpsError('BUNDLE_INVALID', `cannot resume from ${dir}: ${e.message}`, {
        hint: "Check it with 'agentevalops validate-bundle'; a damaged bundle is no record of what ran.",
      })
    }
    // The reader gives the events of a bundle from before events named their benchmark the one of their trial.
    const events = groupBy(bundle.events, (e) => keyOf(e.benchmark ?? '', e.taskId, e.trial))
    const recordings = groupBy(await bundleRecordings(dir), (r) =>
      keyOf(r.benchmark ?? '', r.taskId, r.trial),
    )
    for (const t of bundle.scores.trials) {
      const k = keyOf(t.benchmark.id, t.taskId, t.trial)
      const own = events.get(k)
      if (NOT_REUSABLE.has(t.outcome) || t.keys === null || !own) continue
      // Recordings made before they named their benchmark answer the task's trial in any benchmark.
      const used = recordings.get(k) ?? recordings.get(keyOf('', t.taskId, t.trial)) ?? []
      trials.set(k, { record: { ...t, runId }, events: own, dir, recordings: used })
    }
  }
  return trials
}

/** An earlier trial of the same benchmark, task and trial that is run again: its keys say it would differ. */
export interface RunAgain {
  runId: string
  /** What changed, worded for the console: "limits changed", "runner config changed"… */
  reasons: string[]
}

/**
 * How to take this trial over from the resumed bundles, if it can be: whole, re-scored, or not at all — and when
 * an earlier trial is there but not taken over, why.
 */
export async function reuseFor(
  resume: ProvidedRun['resume'],
  trial: { benchmarkId: string; taskId: string; trial: number; keys: TrialKeys },
  /**
   * Whether the trial can be scored again without its workspace. A benchmark that grades the workspace the agent
   * left (a repository's tests) cannot: the workspace went with the earlier run, so such a trial runs again.
   */
  rescorable = true,
): Promise<{ reuse?: Reuse; runAgain?: RunAgain }> {
  if (resume.length === 0) return {}
  const earlier = (await earlierTrials(resume)).get(keyOf(trial.benchmarkId, trial.taskId, trial.trial))
  const keys = earlier?.record.keys
  if (!earlier || !keys) return {}
  const runId = earlier.record.runId
  if (keys.agent !== trial.keys.agent)
    return { runAgain: { runId, reasons: agentKeyChanges(keys, trial.keys) } }
  const mode = keys.score === trial.keys.score ? 'record' : 'rescored'
  if (mode === 'rescored' && !rescorable) {
    const changed = scoreKeyChanges(keys, trial.keys)
    const reasons = [
      `${changed.length > 0 ? changed.join(', ') : 'scoring changed'} and this benchmark grades the workspace, which went with the earlier run`,
    ]
    return { runAgain: { runId, reasons } }
  }
  return {
    reuse: {
      mode,
      from: earlier.record,
      events: earlier.events,
      earlier: { dir: earlier.dir, recordings: earlier.recordings },
    },
  }
}

// Once per worker and reason: a changed config makes every trial run again, and one line says it for all of them.
const announced = new Set<string>()

/** Says on the console, once per worker and reason, why a resume runs an earlier trial again. */
export function announceRunAgain(benchmarkId: string, trial: string, again: RunAgain): string {
  const message = `not taken over from run ${again.runId}: ${again.reasons.join(', ')}`
  const once = `${benchmarkId}\u0000${again.runId}\u0000${message}`
  if (!announced.has(once)) {
    announced.add(once)
    console.warn(`agentevalops --resume: ${benchmarkId} trials run again, ${message} (first: ${trial})`)
  }
  return message
}

/**
 * Brings into the new run's staging folder what a taken-over trial had in its bundle besides its record and trace:
 * the artifacts its result names inside the bundle (a grader's patch.diff), and the model calls it was answered
 * with. Without them the new bundle would name files it does not hold, and could not be replayed. A re-scored
 * trial's judges called again: their new exchanges win over the earlier ones of the same request.
 */
export async function carryOver(
  stagingDir: string,
  reuse: Reuse,
  result: AgentResult | null,
  usedNow: readonly RecordingEntry[],
): Promise<RecordingEntry[]> {
  for (const artifact of result?.artifacts ?? []) {
    const path = bundleRelative(artifact.path)
    if (path === null) continue
    await mkdir(dirname(join(stagingDir, path)), { recursive: true })
    // One it cannot find is left named as it was: the earlier bundle's validation is where that shows.
    await copyFile(join(reuse.earlier.dir, path), join(stagingDir, path)).catch(
      (e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e
      },
    )
  }
  const fresh = new Set(usedNow.map((r) => `${r.key}\u0000${r.ordinal}`))
  return [...reuse.earlier.recordings.filter((r) => !fresh.has(`${r.key}\u0000${r.ordinal}`)), ...usedNow]
}

/** An artifact path inside a bundle's artifacts folder, or null for one elsewhere (a runner's own log file). */
function bundleRelative(path: string): string | null {
  const normal = posix.normalize(path)
  if (posix.isAbsolute(normal) || !normal.startsWith(`${ARTIFACTS_DIR}/`)) return null
  return normal
}

async function bundleRecordings(dir: string): Promise<RecordingEntry[]> {
  const { RECORDINGS_FILE } = await import('../src/bundles/index.ts')
  return readCassette(join(dir, RECORDINGS_FILE))
}

function groupBy<T>(items: Iterable<T>, key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>()
  for (const item of items) {
    const k = key(item)
    let list = groups.get(k)
    if (!list) groups.set(k, (list = []))
    list.push(item)
  }
  return groups
}
