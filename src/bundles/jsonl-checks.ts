import { RecordedExchange, TraceEvent, shapeChecks, type ScoresRecords } from '../core/index.ts'
import type { BundleFiles } from './bundle-files.ts'
import type { CheckName } from './checks.ts'
import type { FindingList } from './findings.ts'
import { describeTrial, recordKey, RECORDINGS_FILE, TRACES_FILE, trialKeyString } from './layout.ts'
import { formatBytes, MAX_LINE_BYTES } from './limits.ts'
import type { Line } from './lines.ts'
import { TraceChecker } from './trace-checks.ts'
import { checkSchema, nonFinitePath, parseJsonLine } from './untrusted-json.ts'

/**
 * The value of each line of a JSONL file that is well-formed JSON, after reporting lines that are too long, not
 * UTF-8, blank or not JSON. `check` names what a bad line breaks; `invalid` caps those findings.
 */
export function jsonLines(
  file: string,
  check: CheckName,
  findings: FindingList,
  each: (value: unknown, where: string, plain: boolean) => void,
): (line: Line) => void {
  const invalid = { key: `${file}:invalid`, label: 'invalid lines' }
  return (line) => {
    const where = `line ${line.number}`
    if ('tooLong' in line) {
      findings.add(
        'size-limits',
        file,
        `${where}: ${line.bytes} bytes long, more than the ${formatBytes(MAX_LINE_BYTES)} a line may take`,
        { key: `${file}:too-long`, label: 'lines over the size limit' },
      )
      return
    }
    if (!line.utf8) {
      // Still parsed: one damaged character need not hide the event, and the checks after it stay meaningful.
      findings.add('utf8', file, `${where}: not valid UTF-8`, {
        key: `${file}:utf8`,
        label: 'lines with bad UTF-8',
      })
    }
    if (line.text.trim() === '') {
      findings.add(check, file, `${where}: empty line`, invalid)
      return
    }
    const json = parseJsonLine(line.text)
    if (!json.ok) {
      findings.add(check, file, `${where}: ${json.problem}`, invalid)
      return
    }
    const infinite = json.plain ? undefined : nonFinitePath(json.value)
    if (infinite !== undefined) {
      // Still checked further: the rest of the line may be sound, and the cross-file checks need it.
      findings.add('finite-numbers', file, `${where}: ${infiniteMessage(infinite)}`, {
        key: `${file}:finite`,
        label: 'lines with a number that is not finite',
      })
    }
    // plain: no number is infinite and nothing too deep, so a hand-written schema test may stand in for zod.
    each(json.value, where, json.plain)
  }
}

export function infiniteMessage(path: string): string {
  return `${path} is not a finite number (a literal too large for a double, such as 1e400, reads as Infinity)`
}

export interface TraceReading {
  eventCount: number
}

/**
 * Streams traces.jsonl through the schema and the trace rules. Events are kept only when `events` is given: a
 * validator needs none of them, so its memory does not grow with the trace. A kept event of a format that did not
 * name its benchmark gets the one its trial has, so that readers can look up every trial's events the same way.
 */
export async function readTraces(
  files: BundleFiles,
  runId: string | undefined,
  scores: ScoresRecords | undefined,
  formatVersion: number,
  findings: FindingList,
  events: TraceEvent[] | undefined,
): Promise<TraceReading> {
  const checker = new TraceChecker(runId, findings, scores?.trials.map(recordKey), formatVersion)
  if (scores) checker.checkClaims(scores.trials)
  const invalid = { key: `${TRACES_FILE}:invalid`, label: 'invalid lines' }
  const visit = jsonLines(TRACES_FILE, 'trace-schema', findings, (value, where, plain) => {
    let event: TraceEvent
    // A reader keeps zod's output (defaults filled in, unknown keys dropped); a validator only needs the verdict.
    if (plain && !events && shapeChecks.isTraceEvent(value)) {
      event = value as TraceEvent
    } else {
      const parsed = checkSchema(TraceEvent, value)
      if (!parsed.ok) {
        findings.add('trace-schema', TRACES_FILE, `${where}: ${parsed.problem}`, invalid)
        return
      }
      event = parsed.data as TraceEvent
    }
    const benchmark = checker.add(event, where)
    events?.push(event.benchmark === undefined && benchmark !== '' ? { ...event, benchmark } : event)
  })
  if (await files.readLines(TRACES_FILE, visit)) checker.finish()
  return { eventCount: checker.eventCount }
}

/** Each line a recorded exchange of a trial the scores know: a bundle carries only what its trials were answered with. */
export async function readRecordings(
  files: BundleFiles,
  scores: ScoresRecords | undefined,
  findings: FindingList,
): Promise<void> {
  const keys = scores?.trials.map(recordKey)
  const trials = keys && new Set(keys.map(trialKeyString))
  // A recording from before recordings named their benchmark answers the task's trial in any benchmark.
  const anyBenchmark = keys && new Set(keys.map((k) => trialKeyString({ ...k, benchmark: '' })))
  const invalid = { key: `${RECORDINGS_FILE}:invalid`, label: 'invalid lines' }
  const visit = jsonLines(RECORDINGS_FILE, 'recordings', findings, (value, where) => {
    const parsed = checkSchema(RecordedExchange, value)
    if (!parsed.ok) {
      findings.add('recordings', RECORDINGS_FILE, `${where}: ${parsed.problem}`, invalid)
      return
    }
    const { benchmark, taskId, trial } = parsed.data
    const key = { benchmark: benchmark ?? '', taskId, trial }
    const known = benchmark === undefined ? anyBenchmark : trials
    if (known && !known.has(trialKeyString(key))) {
      findings.add(
        'recordings',
        RECORDINGS_FILE,
        `${where}: a recording of ${describeTrial(key)}, which scores.json does not have`,
        { key: `${RECORDINGS_FILE}:unknown`, label: 'recordings of trials scores.json does not have' },
      )
    }
  })
  await files.readLines(RECORDINGS_FILE, visit)
}
