import { createReadStream } from 'node:fs'
import { AgentEvalOpsError } from '../../core/index.ts'
import { isEmbeddableJson } from './embed.ts'

/**
 * The trials go into the page as rows blocks, `<script type="application/json" class="rows">[row,row,…]</script>`,
 * each at most this many characters (or one row, if longer): a 100,000-trial report is then many strings of a few
 * MB for the browser to parse, not one of hundreds.
 */
export const ROWS_BLOCK_CHARS = 4 * 1024 * 1024

const OPEN = '<script type="application/json" class="rows">['
const CLOSE = ']</script>'

/** Where trial rows come from: texts made by htmlTrialRow, or a file of them, one a line (each ending in '\n'). */
export type RowsSource = string | Iterable<string> | AsyncIterable<string>

/**
 * Splits rows into blocks as they come: `add` returns the text to write for one row (opening a block, or closing
 * one and opening the next, as needed), `end` what closes the last. Always at least one block, so the page finds
 * its rows the same way in a run without trials.
 */
export class RowsBlocks {
  private used = -1
  private count = 0

  constructor(private readonly limit: number = ROWS_BLOCK_CHARS) {}

  add(row: string, where: string): string {
    checkRow(row, this.count, where)
    this.count += 1
    if (this.used < 0) {
      this.used = row.length
      return OPEN + row
    }
    if (this.used + 1 + row.length > this.limit) {
      this.used = row.length
      return `${CLOSE}\n${OPEN}${row}`
    }
    this.used += 1 + row.length
    return `,${row}`
  }

  end(): string {
    return this.used < 0 ? OPEN + CLOSE : CLOSE
  }
}

/**
 * A row must be one JSON object in the block's escaping (jsonForScript): then nothing in it can close its script
 * element, whatever wrote the rows file. Its JSON itself is not parsed here; the page does that.
 */
function checkRow(row: string, index: number, where: string): void {
  if (row.length >= 2 && row.startsWith('{') && row.endsWith('}') && isEmbeddableJson(row)) return
  throw new AgentEvalOpsError(
    'BUNDLE_INVALID',
    `row ${index + 1} of ${where} is not a row of the HTML report (one JSON object from htmlTrialRow, in its escaping).`,
    {
      hint: 'Render the report from the bundle instead: agentevalops report runs/<id> --format html -o report.html',
    },
  )
}

/** The rows of a source, as texts. A file's last line must end in '\n': one that does not was never finished. */
export async function* rowsOf(source: RowsSource): AsyncGenerator<string> {
  if (typeof source !== 'string') {
    yield* source
    return
  }
  // Rows are ASCII: latin1 reads them one byte a character, and any other byte becomes a character checkRow refuses.
  let rest = ''
  let line = 0
  for await (const chunk of createReadStream(source, { encoding: 'latin1', highWaterMark: 256 * 1024 })) {
    const text = rest + (chunk as string)
    let start = 0
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      line += 1
      if (end > start) yield text.slice(start, end)
      start = end + 1
    }
    rest = text.slice(start)
  }
  if (rest !== '') {
    throw new AgentEvalOpsError(
      'BUNDLE_INVALID',
      `the last line of ${source} (line ${line + 1}) has no newline: its row was never finished.`,
      {
        hint: 'Render the report from the bundle instead: agentevalops report runs/<id> --format html -o report.html',
      },
    )
  }
}
