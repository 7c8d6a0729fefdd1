import {
  AgentEvalOpsError,
  BUNDLE_FORMAT_VERSION,
  jsonChunks,
  RunSummary,
  sealedSummary,
  StreamedJsonArray,
  TaskSummary,
  withTasks,
  type SealedSummary,
  type TrialRecord,
} from '../core/index.ts'
import { DurableFileWriter, type FileDigest } from './durable-file.ts'
import { describeIssues } from './findings.ts'

/**
 * scores.json written a trial at a time, so a run's trials never have to be in memory together: the bytes are
 * those of `toBundleJson({ schemaVersion, trials, summary })`, trials in the order given (the bundle's: benchmark,
 * task, trial). Each trial is written as its record says, without its run id (metadata.json's) and phase timing
 * (spans.jsonl's), so that equal runs write equal files.
 */
export class ScoresJsonWriter {
  private count = 0

  private constructor(private readonly writer: DurableFileWriter) {}

  static async create(path: string): Promise<ScoresJsonWriter> {
    const writer = await DurableFileWriter.create(path)
    await writer.write(`{\n  "schemaVersion": ${BUNDLE_FORMAT_VERSION},\n  "trials": [`)
    return new ScoresJsonWriter(writer)
  }

  get trials(): number {
    return this.count
  }

  async trial(record: Readonly<TrialRecord>): Promise<void> {
    await this.entry(scoresJsonEntry(record))
  }

  /** A trial's text as scoresJsonEntry made it (the fold makes it as the trial finishes, the seal copies it). */
  async entry(text: string | Uint8Array): Promise<void> {
    await this.writer.write(this.count === 0 ? '\n' : ',\n')
    await this.writer.write(text)
    this.count++
  }

  /**
   * Ends the file with the run's summary, checked against its schema (written once, so checked once); its task
   * table row by row as it is written, so a spilled table is read through once and never held.
   */
  async finish(whole: RunSummary | SealedSummary): Promise<FileDigest> {
    const { summary, tasks } = sealedSummary(whole)
    const head = SummaryHead.safeParse(summary)
    if (!head.success) return this.refuse(describeIssues(head.error.issues, 10))
    const rows = new StreamedJsonArray(function* () {
      let index = 0
      for (const { task } of tasks) {
        const row = TaskSummary.safeParse(task)
        if (!row.success)
          throw invalidSummary(
            describeIssues(
              row.error.issues.map((issue) => ({ ...issue, path: ['tasks', index, ...issue.path] })),
              10,
            ),
          )
        index++
        yield row.data
      }
    })
    try {
      await this.writer.write(`${this.count === 0 ? ']' : '\n  ]'},\n  "summary": `)
      // In pieces: the summary of a 100,000-task run is tens of MB of text, its task table most of it.
      for (const piece of jsonChunks(withTasks(head.data, rows), { indent: true, prefix: '  ' }))
        await this.writer.write(piece)
      await this.writer.write('\n}\n')
    } catch (e) {
      await this.writer.abandon()
      throw e
    }
    return this.writer.close()
  }

  private async refuse(issues: string): Promise<never> {
    await this.writer.abandon()
    throw invalidSummary(issues)
  }

  async abandon(): Promise<void> {
    await this.writer.abandon()
  }
}

/** A trial's text in scores.json's trials array, less the separator before it. */
export function scoresJsonEntry(record: Readonly<TrialRecord>): string {
  const { runId: _runId, timing: _timing, ...scored } = record
  return `    ${indented(scored, '    ')}`
}

/** JSON.stringify(value, null, 2) nested `prefix` deep: a JSON text holds a newline only between its tokens. */
function indented(value: unknown, prefix: string): string {
  return JSON.stringify(value, null, 2).replaceAll('\n', `\n${prefix}`)
}

const SummaryHead = RunSummary.omit({ tasks: true })

function invalidSummary(issues: string): AgentEvalOpsError {
  return new AgentEvalOpsError(
    'BUNDLE_INVALID',
    `refusing to write an invalid run summary (a bug in the code that computed it; no bundle was written): ${issues}`,
  )
}
