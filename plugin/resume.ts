import {
  isAgentEvalOpsError,
  AgentEvalOpsError,
  type ProvidedRun,
  type TraceEvent,
  type TrialRecord,
} from '../src/core/index.ts'
import type { Bundle } from '../src/bundles/index.ts'
import type { TrialKeys, TrialReuse } from '../src/engine/index.ts'

interface Earlier {
  record: TrialRecord
  events: TraceEvent[]
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
    const events = new Map<string, TraceEvent[]>()
    for (const e of bundle.events) {
      const k = keyOf(e.benchmark ?? '', e.taskId, e.trial)
      let list = events.get(k)
      if (!list) events.set(k, (list = []))
      list.push(e)
    }
    for (const t of bundle.scores.trials) {
      const k = keyOf(t.benchmark.id, t.taskId, t.trial)
      const own = events.get(k)
      if (NOT_REUSABLE.has(t.outcome) || t.keys === null || !own) continue
      trials.set(k, { record: { ...t, runId }, events: own })
    }
  }
  return trials
}

/** How to take this trial over from the resumed bundles, if it can be: whole, re-scored, or not at all. */
export async function reuseFor(
  resume: ProvidedRun['resume'],
  trial: { benchmarkId: string; taskId: string; trial: number; keys: TrialKeys },
  /**
   * Whether the trial can be scored again without its workspace. A benchmark that grades the workspace the agent
   * left (a repository's tests) cannot: the workspace went with the earlier run, so such a trial runs again.
   */
  rescorable = true,
): Promise<TrialReuse | undefined> {
  if (resume.length === 0) return undefined
  const earlier = (await earlierTrials(resume)).get(keyOf(trial.benchmarkId, trial.taskId, trial.trial))
  if (!earlier || earlier.record.keys?.agent !== trial.keys.agent) return undefined
  const mode = earlier.record.keys.score === trial.keys.score ? 'record' : 'rescored'
  if (mode === 'rescored' && !rescorable) return undefined
  return {
    mode,
    from: earlier.record,
    events: earlier.events,
  }
}
