import { readFile } from 'node:fs/promises'
import { AgentEvalOpsError, TraceEvent } from '../core/index.ts'

export interface ParseTraceOptions {
  /** Name used in error messages. */
  file: string
  /**
   * Drop an unparseable last line that has no newline, as a crash mid-write leaves it, instead of throwing.
   * The caller learns about it from `truncatedTail`.
   */
  tolerateTruncatedTail?: boolean
}

export interface TraceFileContents {
  events: TraceEvent[]
  /** True when an unparseable, unterminated last line was dropped. */
  truncatedTail: boolean
}

/** Parses JSONL trace text, every line through the TraceEvent schema. */
export function parseTraceJsonl(text: string, options: ParseTraceOptions): TraceFileContents {
  const lines = text.split('\n')
  // A writer ends every line with '\n': anything after the last one was cut short, unless it still parses.
  const tail = lines.pop() ?? ''
  const events: TraceEvent[] = []
  lines.forEach((line, i) => {
    if (line.trim() !== '') events.push(parseLine(line, options.file, i + 1))
  })
  if (tail.trim() === '') return { events, truncatedTail: false }

  const tailLine = lines.length + 1
  let json: unknown
  try {
    json = JSON.parse(tail)
  } catch {
    if (options.tolerateTruncatedTail) return { events, truncatedTail: true }
    throw new AgentEvalOpsError(
      'TRACE_INVALID',
      'truncated last line (the writer probably stopped mid-write)',
      {
        location: { file: options.file, line: tailLine },
        hint: 'Read it with tolerateTruncatedTail to recover the complete events before it.',
      },
    )
  }
  events.push(validate(json, options.file, tailLine))
  return { events, truncatedTail: false }
}

function parseLine(line: string, file: string, lineNo: number): TraceEvent {
  let json: unknown
  try {
    json = JSON.parse(line)
  } catch (e) {
    throw new AgentEvalOpsError('TRACE_INVALID', `not JSON: ${(e as Error).message}`, {
      location: { file, line: lineNo },
    })
  }
  return validate(json, file, lineNo)
}

function validate(json: unknown, file: string, lineNo: number): TraceEvent {
  const parsed = TraceEvent.safeParse(json)
  if (parsed.success) return parsed.data as TraceEvent
  const issue = parsed.error.issues[0]
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''
  throw new AgentEvalOpsError(
    'TRACE_INVALID',
    `not a valid trace event: ${where}${issue?.message ?? 'invalid'}`,
    {
      location: { file, line: lineNo },
    },
  )
}

/** Reads one trace file. Missing or unreadable files are TRACE_INVALID too: the trace the caller expects is gone. */
export async function readTraceFile(
  file: string,
  options: Omit<ParseTraceOptions, 'file'> & { file?: string } = {},
): Promise<TraceFileContents> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (e) {
    throw new AgentEvalOpsError('TRACE_INVALID', `cannot read trace file: ${(e as Error).message}`, {
      location: { file: options.file ?? file },
      cause: e,
    })
  }
  return parseTraceJsonl(text, { ...options, file: options.file ?? file })
}
