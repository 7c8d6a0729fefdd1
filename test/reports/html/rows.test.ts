/**
 * The HTML report written as a run goes: a row per trial from its record and events alone (written to a rows file
 * as each trial is folded), totals folded one trial at a time, and at the end only the run part and the seal.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  isAgentEvalOpsError,
  sealedSummary,
  type TraceEvent,
  type TrialRecord,
} from '../../../src/core/index.ts'
import {
  HtmlReportAggregates,
  htmlRunPart,
  htmlTrialRow,
  renderHtmlReport,
  renderHtmlReportFromRows,
  taskTokens,
  writeHtmlReportFromRows,
  type PageData,
  type TrialData,
} from '../../../src/reports/html/index.ts'
import { jsonForScript } from '../../../src/reports/html/embed.ts'
import { makeEvents, makeMetadata, makeTrials, tempDir } from '../../bundles/fixtures.ts'
import { summarize } from '../fixtures.ts'

const DATA_BLOCK = /<script type="application\/json" id="data">([\s\S]*?)<\/script>/
const ROWS_BLOCK = /<script type="application\/json" class="rows">\[([\s\S]*?)\]<\/script>/g

/** The fixture run (3 tasks × 2 trials) in the order its trials finished: the last first. */
function run() {
  const trials = makeTrials().reverse()
  trials[0] = { ...trials[0]!, result: { ...trials[0]!.result!, finalAnswer: 'naïve </script>' } }
  const events = new Map(trials.map((t) => [t, makeEvents(t)]))
  return { metadata: makeMetadata(trials), trials, summary: summarize(trials), events }
}

/** What the run writes as each trial ends: its row (one a line) and its totals. */
function fold(trials: readonly TrialRecord[], events: ReadonlyMap<TrialRecord, TraceEvent[]>) {
  const totals = new HtmlReportAggregates()
  const lines: string[] = []
  for (const trial of trials) {
    totals.add(trial)
    lines.push(`${htmlTrialRow(trial, events.get(trial)!)}\n`)
  }
  return { totals, rows: lines.join('') }
}

function rowBlocks(html: string): string[] {
  return [...html.matchAll(ROWS_BLOCK)].map((m) => m[1]!)
}

/** The texts of every row of every rows block (JSON.stringify's text parses and prints back the same). */
function rowTexts(html: string): string[] {
  return rowBlocks(html).flatMap((block) => (JSON.parse(`[${block}]`) as unknown[]).map(jsonForScript))
}

async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let text = ''
  for await (const chunk of chunks) text += chunk
  return text
}

describe('HTML report rows', () => {
  let work: Awaited<ReturnType<typeof tempDir>>
  beforeAll(async () => {
    work = await tempDir('aeo-html-rows-')
  })
  afterAll(async () => {
    await work?.remove()
  })

  it('makes a trial’s row from its record and events alone: the same text alone, within its run or another', () => {
    const { trials, events, metadata, summary } = run()
    const inRun = rowTexts(
      renderHtmlReport({ metadata, trials, summary, events: [...events.values()].flat() }),
    )
    expect(inRun).toHaveLength(trials.length)
    for (const trial of trials) {
      const row = htmlTrialRow(trial, events.get(trial)!)
      // Its task by key, not by an index into the summary's tasks.
      expect((JSON.parse(row) as TrialData).task).toBe(`${trial.benchmark.id}/${trial.taskId}`)
      expect(inRun).toContain(row)
      const alone = renderHtmlReport({
        metadata: makeMetadata([trial]),
        trials: [trial],
        summary: summarize([trial]),
        events: events.get(trial)!,
      })
      expect(rowTexts(alone)).toEqual([row])
      // The events in any order: the row sorts them by step.
      expect(htmlTrialRow(trial, [...events.get(trial)!].reverse())).toBe(row)
    }
    // Escaped as the data block is: nothing in a row can close its script element.
    const hostile = htmlTrialRow(trials[0]!, events.get(trials[0]!)!)
    expect(hostile).not.toMatch(/[<>&\u0080-\uffff]/)
    expect(JSON.parse(hostile)).toMatchObject({ answer: 'naïve </script>' })
  })

  it('renders from a rows file written during the run the same report as renderHtmlReport of the run', async () => {
    const { trials, events, metadata, summary } = run()
    const { totals, rows } = fold(trials, events)
    const rowsFile = join(work.path, 'rows.jsonl')
    await writeFile(rowsFile, rows)
    const out = join(work.path, 'report.html')
    await writeHtmlReportFromRows(
      out,
      htmlRunPart(metadata, sealedSummary(summary, taskTokens(trials)), totals),
      rowsFile,
    )
    const streamed = await readFile(out, 'utf8')
    const whole = renderHtmlReport({ metadata, trials, summary, events: [...events.values()].flat() })

    // The run part is the same text; the rows the same texts, here in the order the trials ended.
    expect(DATA_BLOCK.exec(streamed)![1]).toBe(DATA_BLOCK.exec(whole)![1])
    expect(rowTexts(streamed)).toEqual(rows.trimEnd().split('\n'))
    expect([...rowTexts(streamed)].sort()).toEqual([...rowTexts(whole)].sort())
    // Everything but the rows' order is the same document.
    expect(streamed.replace(ROWS_BLOCK, '')).toBe(whole.replace(ROWS_BLOCK, ''))
    const runPart = JSON.parse(DATA_BLOCK.exec(streamed)![1]!) as PageData
    expect(runPart.tasks.map((t) => t.key)).toEqual(summary.tasks.map((t) => `toy/${t.taskId}`))
  })

  it('splits rows over blocks of a bounded size and takes them from any iterable', async () => {
    const { trials, events, metadata, summary } = run()
    const { totals, rows } = fold(trials, events)
    const texts = rows.trimEnd().split('\n')
    const longest = Math.max(...texts.map((t) => t.length))
    async function* slowly() {
      for (const text of texts) yield await Promise.resolve(text)
    }
    const runPart = htmlRunPart(metadata, sealedSummary(summary, taskTokens(trials)), totals)
    const html = await collect(renderHtmlReportFromRows(runPart, slowly(), { blockChars: longest + 1 }))
    expect(rowBlocks(html)).toHaveLength(texts.length)
    expect(rowTexts(html)).toEqual(texts)
    const two = await collect(renderHtmlReportFromRows(runPart, texts, { blockChars: 2 * longest + 1 }))
    expect(rowBlocks(two).length).toBeLessThan(texts.length)
    expect(rowTexts(two)).toEqual(texts)
    // No trials: one empty block, so the page reads its rows the one way.
    const none = await collect(renderHtmlReportFromRows(runPart, []))
    expect(rowBlocks(none)).toEqual([''])
  })

  it('refuses a row that could close its element, or a rows file whose last row was never finished', async () => {
    const { trials, events, metadata, summary } = run()
    const { totals, rows } = fold(trials, events)
    const runPart = htmlRunPart(metadata, sealedSummary(summary, taskTokens(trials)), totals)
    const out = join(work.path, 'kept.html')
    await writeFile(out, 'the report as it was')
    const raw = rows.replace('"answer":"', '"answer":"</script><script>alert(1)</script>')
    const torn = rows.slice(0, -10)
    for (const [name, text, message] of [
      ['raw.jsonl', raw, /row 1 of .*raw\.jsonl is not a row of the HTML report/],
      ['torn.jsonl', torn, /last line of .*torn\.jsonl \(line 6\) has no newline/],
    ] as const) {
      const file = join(work.path, name)
      await writeFile(file, text)
      const error = await writeHtmlReportFromRows(out, runPart, file).then(
        () => null,
        (e: unknown) => e,
      )
      expect(isAgentEvalOpsError(error, 'BUNDLE_INVALID')).toBe(true)
      expect((error as Error).message).toMatch(message)
      expect(await readFile(out, 'utf8')).toBe('the report as it was')
    }
  })
})
