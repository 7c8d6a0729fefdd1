import { tmpdir } from 'node:os'
import { join, posix } from 'node:path'
import {
  AgentEvalOpsError,
  safeFileStem,
  type ArtifactRef,
  type Evaluator,
  type GradeContext,
  type GradeOutput,
  type TrialView,
} from '../core/index.ts'
import { LocalArtifactStore } from '../stores/index.ts'

type MaybePromise<T> = T | Promise<T>

/** A benchmark's grade(), as the engine is handed it (bound to its adapter). */
export type GradeFn = (view: TrialView, ctx: GradeContext) => MaybePromise<GradeOutput>

/** Where a trial's artifacts go: `save` writes one and returns the ref the result carries. */
export interface TrialArtifacts {
  save(name: string, data: string | Uint8Array): Promise<ArtifactRef>
}

/** Grading that never says how long it may take gets this long: a repository's test suite fits, a hang does not. */
export const DEFAULT_GRADE_TIMEOUT_SECONDS = 600

/** The id of a benchmark's own grading score. */
export function gradeEvaluatorId(benchmarkId: string): string {
  return `${benchmarkId}-grade`
}

/**
 * Artifacts in a folder of their own per trial, named in refs by `prefix` + their relative name (the plugin uses
 * the bundle's `artifacts/<benchmark>/<task>.t<n>`, so the ref is the file's path inside the bundle).
 */
export function folderArtifacts(root: string, prefix: string = root): TrialArtifacts {
  const store = new LocalArtifactStore(root)
  return {
    async save(name, data) {
      const rel = await store.put(name, data)
      return { name, path: posix.join(prefix, rel.split(/[\\/]/).join('/')) }
    },
  }
}

/** Outside a run that keeps them (a direct runTrial call), a trial's artifacts go to the temp folder. */
export function tempArtifacts(
  runId: string,
  benchmarkId: string,
  taskId: string,
  trial: number,
): TrialArtifacts {
  const root = join(
    tmpdir(),
    'agentevalops-artifacts',
    safeFileStem(runId),
    safeFileStem(benchmarkId),
    `${safeFileStem(taskId)}.t${trial}`,
  )
  return folderArtifacts(root)
}

export interface GradeEvaluatorOptions {
  benchmarkId: string
  grade: GradeFn
  timeoutSeconds: number
  artifacts: TrialArtifacts
  /** Artifacts the grader saved, in order, for the trial's result. */
  saved: ArtifactRef[]
  warn(message: string): void
}

/**
 * The benchmark's grade() as one more evaluator, so it is timed, validated and recorded like the others; a grader
 * that throws or overruns its time limit gives an error score, which makes the trial an infra failure.
 */
export function gradeEvaluator(options: GradeEvaluatorOptions): Evaluator {
  const { timeoutSeconds } = options
  return {
    id: gradeEvaluatorId(options.benchmarkId),
    kind: 'deterministic',
    async evaluate(view, ctx) {
      const stop = new AbortController()
      const outer = ctx?.signal
      const onOuterAbort = (): void => stop.abort(outer?.reason)
      if (outer?.aborted) onOuterAbort()
      outer?.addEventListener('abort', onOuterAbort, { once: true })
      let timer: NodeJS.Timeout | undefined
      const overrun = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new AgentEvalOpsError(
            'GRADE_TIMEOUT',
            `the grader did not finish within ${timeoutSeconds} s`,
            {
              hint: "Raise the benchmark's grade timeout if its tests are slow, or look for a hang in them.",
            },
          )
          stop.abort(error)
          reject(error)
        }, timeoutSeconds * 1000)
      })
      const gradeCtx: GradeContext = {
        signal: stop.signal,
        timeoutSeconds,
        warn: (message) => options.warn(message),
        saveArtifact: async (name, data) => {
          const ref = await options.artifacts.save(name, data)
          options.saved.push(ref)
          return ref
        },
      }
      try {
        return await Promise.race([Promise.resolve(options.grade(view, gradeCtx)), overrun])
      } finally {
        clearTimeout(timer)
        outer?.removeEventListener('abort', onOuterAbort)
      }
    },
  }
}
