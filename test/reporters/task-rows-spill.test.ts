import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ScoresJsonWriter } from '../../src/bundles/index.ts'
import {
  jsonChunks,
  sealedSummary,
  wholeSummary,
  type RunSummary,
  type SealedSummary,
  type TrialRecord,
} from '../../src/core/index.ts'
import { HtmlReportAggregates, htmlRunPart, taskTokens } from '../../src/reports/html/index.ts'
import { renderMarkdownReport } from '../../src/reports/index.ts'
import { TaskRowsSpill } from '../../reporters/task-rows-spill.ts'
import { makeMetadata, makeSummary, makeTrials, RUN_ID, tempDir } from '../bundles/fixtures.ts'

let work: Awaited<ReturnType<typeof tempDir>>
beforeAll(async () => {
  work = await tempDir('aeo-task-rows-')
})
afterAll(() => work.remove())

/**
 * `tasks` tasks of `trials` trials, with ids of 1-, 2-, 3- and 4-byte characters so that rows straddle the spill's
 * read blocks inside a character; some tasks fail now and then (flaky), some always (never passed).
 */
function records(tasks: number, trials: number): TrialRecord[] {
  const ids = Array.from({ length: tasks }, (_, i) => `tâsk-€-𝄞-${String(i).padStart(6, '0')}`)
  return makeTrials({ runId: RUN_ID, tasks: ids, trials }).map((r, i) => {
    const failing = r.taskId.endsWith('3') || (r.taskId.endsWith('7') && i % 2 === 0)
    return failing ? { ...r, passed: false, outcome: 'failed' as const } : r
  })
}

function spilled(summary: RunSummary, trials: readonly TrialRecord[], file: string): SealedSummary {
  const spill = new TaskRowsSpill(join(work.path, file))
  const tokensOf = taskTokens(trials)
  for (const task of summary.tasks) spill.add(task, tokensOf(task))
  const { tasks: _tasks, ...head } = summary
  return { summary: head, tasks: spill }
}

async function scoresText(summary: RunSummary | SealedSummary, file: string): Promise<string> {
  const path = join(work.path, file)
  const writer = await ScoresJsonWriter.create(path)
  await writer.finish(summary)
  return readFile(path, 'utf8')
}

describe('a task table spilled to a file', () => {
  it.each([
    [1, 1],
    [400, 3],
    [3000, 1],
  ])(
    'of %i tasks × %i trials writes the scores.json, report.md and report.html run part of the held one',
    async (tasks, trials) => {
      const run = records(tasks, trials)
      const summary = makeSummary(run)
      const metadata = makeMetadata(run)
      const sealed = spilled(summary, run, `rows-${tasks}-${trials}.jsonl`)
      expect(sealed.tasks.count).toBe(summary.tasks.length)
      // Read back more than once, each time whole and in order.
      expect(Array.from(sealed.tasks, (r) => r.task)).toEqual(summary.tasks)
      expect(wholeSummary(sealed)).toEqual(summary)

      expect(await scoresText(sealed, `s-${tasks}.json`)).toBe(await scoresText(summary, `w-${tasks}.json`))
      expect(renderMarkdownReport({ metadata, trials: run, summary: sealed })).toBe(
        renderMarkdownReport({ metadata, trials: run, summary }),
      )
      const totals = new HtmlReportAggregates()
      for (const trial of run) totals.add(trial)
      const streamed = [...jsonChunks(htmlRunPart(metadata, sealed, totals))].join('')
      const held = JSON.stringify(htmlRunPart(metadata, sealedSummary(summary, taskTokens(run)), totals))
      expect(streamed).toBe(held)
      const page = JSON.parse(streamed) as {
        tasks: unknown[]
        tables: { tasks: { rows: { v: unknown[] }[] } }
      }
      expect(page.tasks).toHaveLength(tasks)
      // The tokens column is the trials' own, not a 0 from a missing lookup.
      expect(page.tables.tasks.rows[0]!.v[8]).toBe(run[0]!.usage.tokens * trials)
      ;(sealed.tasks as TaskRowsSpill).close()
    },
  )

  it('says so when its file lost rows, instead of writing a shorter table', async () => {
    const run = records(50, 1)
    const summary = makeSummary(run)
    const sealed = spilled(summary, run, 'short.jsonl')
    ;(sealed.tasks as TaskRowsSpill).close()
    const reopened = new TaskRowsSpill(join(work.path, 'short.jsonl'))
    for (const task of summary.tasks.slice(0, 10)) reopened.add(task, 0)
    ;(reopened as unknown as { count: number }).count = 50
    await expect(scoresText({ summary: sealed.summary, tasks: reopened }, 'short.json')).rejects.toThrow(
      /the task rows end after 10 of 50/,
    )
    reopened.close()
  })

  it('refuses to write a row that is not a task summary, naming where it is', async () => {
    const run = records(5, 1)
    const summary = makeSummary(run)
    const bad = { ...summary, tasks: summary.tasks.map((t, i) => (i === 3 ? { ...t, passRate: 2 } : t)) }
    await expect(scoresText(bad, 'bad.json')).rejects.toThrow(/tasks\.3\.passRate|tasks\[3\]\.passRate/)
  })
})
