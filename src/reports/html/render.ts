import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { sealedSummary, type ReportGenerator, type ReportInput, type TraceEvent } from '../../core/index.ts'
import { uiAsset } from '../ui-bundle/index.ts'
import { jsonChunks } from '../../core/index.ts'
import {
  assertInlineSafe,
  contentSecurityPolicy,
  escapeForScript,
  escapeHtml,
  jsonForScript,
} from './embed.ts'
import type { ReportLinks } from './page-data.ts'
import { htmlRunPart, type HtmlReportInput, type RunPart } from './page-model.ts'
import { HtmlReportAggregates, taskTokens } from './report-aggregates.ts'
import { ROWS_BLOCK_CHARS, RowsBlocks, rowsOf, type RowsSource } from './rows-blocks.ts'
import { byTrial, eventsByTrial, trialRowData, type HtmlReportTrial } from './trial-data.ts'

/** The file name of the HTML report in a bundle. */
export const HTML_REPORT_FILE = 'report.html'

/** report.html as a reporter of the registry (`agentevalops report --format html`). */
export function htmlReportGenerator(): ReportGenerator<ReportInput> {
  return {
    format: HTML_REPORT_FILE,
    render: (input) => renderHtmlReport({ ...input, events: input.events ?? [] }),
  }
}

/**
 * A trial's row of the page, as JSON text in the data blocks' escaping (see jsonForScript): made from the trial's
 * record and its own events alone, so a run can write it as the trial is folded. A rows file holds one a line.
 */
export function htmlTrialRow(record: HtmlReportTrial, events: readonly TraceEvent[]): string {
  return jsonForScript(trialRowData(record, events))
}

/**
 * The report as one self-contained HTML file that opens offline: the data as JSON blocks (the run part, then the
 * trials' rows), the page's own script and style inline, and a Content-Security-Policy that allows exactly those
 * two and fetches nothing. A pure function of bundle data, like report.md: the rows and the totals of the
 * streaming path, made here from the whole run.
 */
export function renderHtmlReport(input: HtmlReportInput): string {
  const totals = new HtmlReportAggregates()
  for (const trial of input.trials) totals.add(trial)
  const records = [...input.trials].sort(byTrial)
  const events = eventsByTrial(records, input.events)
  const blocks = new RowsBlocks()
  const summary = sealedSummary(input.summary, taskTokens(input.trials))
  const runPart = withLinks(htmlRunPart(input.metadata, summary, totals), input.links)
  const parts = [documentHead(runPart)]
  records.forEach((record, i) => parts.push(blocks.add(htmlTrialRow(record, events[i]!), 'the report')))
  parts.push(blocks.end(), documentTail())
  return parts.join('')
}

export interface RenderFromRowsOptions {
  /** How long a rows block may grow (characters) before the next starts. */
  blockChars?: number
  /** Where the page sits when a server shows it (the header's "← all runs"); absent in a bundle's report.html. */
  links?: ReportLinks
}

/**
 * The report from its run part (htmlRunPart, at the end of the run) and its rows (htmlTrialRow texts, or a file of
 * them written during the run), as text chunks in order: the rows pass through one at a time, never all in memory.
 * The same trials give the same page as renderHtmlReport, in whatever order their rows were written.
 */
export async function* renderHtmlReportFromRows(
  runPart: RunPart,
  rows: RowsSource,
  options: RenderFromRowsOptions = {},
): AsyncGenerator<string> {
  const where = typeof rows === 'string' ? rows : 'the rows'
  const blocks = new RowsBlocks(options.blockChars ?? ROWS_BLOCK_CHARS)
  // The run part of a 100,000-task run is tens of MB of JSON (its task table): written in pieces, not as one text.
  const [head, tail] = documentHeadAround(runPart.title)
  yield head
  for (const piece of jsonChunks(withLinks(runPart, options.links))) yield escapeForScript(piece)
  let pending = tail
  for await (const row of rowsOf(rows)) {
    pending += blocks.add(row, where)
    if (pending.length >= CHUNK_CHARS) {
      yield pending
      pending = ''
    }
  }
  yield pending + blocks.end() + documentTail()
}

/**
 * renderHtmlReportFromRows into the file `path`, created or replaced only once the whole report is written: a bad
 * row stops it with the file as it was.
 */
export async function writeHtmlReportFromRows(
  path: string,
  runPart: RunPart,
  rows: RowsSource,
  options: RenderFromRowsOptions = {},
): Promise<void> {
  const partial = `${path}.partial`
  try {
    await pipeline(
      Readable.from(renderHtmlReportFromRows(runPart, rows, options)),
      createWriteStream(partial),
    )
    await rename(partial, path)
  } finally {
    await rm(partial, { force: true })
  }
}

/** Writes are batched to about this many characters: one write per row would cost more than the rows. */
const CHUNK_CHARS = 256 * 1024

function withLinks(data: RunPart, links: ReportLinks | undefined): RunPart {
  return links === undefined ? data : { ...data, links: { home: links.home, run: links.run } }
}

/** The page's app (ui/report), checked that neither part can end its element. */
function pageAsset(): { script: string; style: string } {
  const { script, style } = uiAsset('report')
  return { script: assertInlineSafe(script, 'script'), style: assertInlineSafe(style, 'style') }
}

function documentHead(data: RunPart): string {
  const [head, tail] = documentHeadAround(data.title)
  return `${head}${jsonForScript(data)}${tail}`
}

/** The document's head up to its data block's JSON, and what follows that JSON. */
function documentHeadAround(title: string): [string, string] {
  const { script, style } = pageAsset()
  const head = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(script, style))}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(`agentevalops · ${title}`)}</title>`,
    `<style>${style}</style>`,
    '</head>',
    '<body>',
    '<noscript>This report is drawn by its inline script. report.md and scores.json in the same bundle hold the same figures.</noscript>',
    '<main id="app"></main>',
    '<script type="application/json" id="data">',
  ].join('\n')
  return [head, '</script>\n']
}

function documentTail(): string {
  return ['', `<script>${pageAsset().script}</script>`, '</body>', '</html>', ''].join('\n')
}
