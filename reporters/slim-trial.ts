import type { BenchmarkInfo, EvaluatorScore, ScoredTrial, TrialRecord } from '../src/core/index.ts'
import type { SummarizedTrial } from '../src/scorers/index.ts'

/**
 * What the end of the run needs of a trial without its whole record: the statistics' fields, the task checksum
 * (a baseline comparison's), the run id (the writer's check); its benchmark, runner and labels shared with the
 * trials that have equal ones. A ScoredTrial to the report code for the fields it has (see `reportTrial`). Made in
 * the seal's one pass over the spilled records, not held while the run goes on.
 */
export type SlimTrial = SummarizedTrial & {
  runId: string
  benchmark: BenchmarkInfo
  taskChecksum: string
  scores: readonly SlimScore[]
}

type SlimScore = Pick<EvaluatorScore, 'evaluatorId' | 'kind' | 'score' | 'passed' | 'error' | 'findings'>

const NO_FINDINGS: SlimScore['findings'] = Object.freeze([]) as unknown as SlimScore['findings']

/** A trial's slim form, each of its objects its own. */
export function slimTrial(record: TrialRecord): SlimTrial {
  return {
    runId: record.runId,
    benchmark: record.benchmark,
    taskId: record.taskId,
    taskChecksum: record.taskChecksum,
    trial: record.trial,
    labels: record.labels,
    passed: record.passed,
    outcome: record.outcome,
    result: record.result && { terminatedBy: record.result.terminatedBy },
    scores: record.scores.map((s) => ({
      evaluatorId: s.evaluatorId,
      kind: s.kind,
      score: s.score,
      passed: s.passed,
      error: (s as Partial<EvaluatorScore>).error ?? null,
      findings: NO_FINDINGS,
    })),
    usage: {
      tokens: record.usage.tokens,
      costUsd: record.usage.costUsd,
      wallSeconds: record.usage.wallSeconds,
      turns: record.usage.turns,
    },
    runner: record.runner,
  }
}

/** Makes slim trials of one run: equal benchmarks, runners, label sets and results are one object each. */
export class SlimTrials {
  private readonly shared = new Map<string, unknown>()

  constructor(private readonly runId: string) {}

  of(record: TrialRecord): SlimTrial {
    return this.sharing(slimTrial(record))
  }

  /** `slim` with its run id, benchmark, runner, labels and result the objects equal ones already have. */
  sharing(slim: SlimTrial): SlimTrial {
    slim.runId = slim.runId === this.runId ? this.runId : slim.runId
    slim.benchmark = this.share(slim.benchmark)
    slim.labels = this.share(slim.labels)
    slim.result = slim.result && this.share(slim.result)
    slim.runner = this.share(slim.runner)
    for (const score of slim.scores) score.findings = NO_FINDINGS
    return slim
  }

  /** One object for equal values (a run has a few benchmarks, runners and label sets, not one per trial). */
  private share<T>(value: T): T {
    const key = JSON.stringify(value)
    const known = this.shared.get(key)
    if (known !== undefined) return known as T
    this.shared.set(key, value)
    return value
  }
}

/**
 * The slim trial as the report code's ScoredTrial, for the console and job summaries and the baseline comparison:
 * they read only the fields the slim form keeps (report.md's rows are made from the whole records, by SealTally).
 */
export function reportTrial(slim: SlimTrial): ScoredTrial {
  return slim as unknown as ScoredTrial
}
