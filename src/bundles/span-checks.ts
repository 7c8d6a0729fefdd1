import { AEO, OtlpTraceRequest, SPAN, SPANS_FILE, type OtlpSpan, type ScoresRecords } from '../core/index.ts'
import type { BundleFiles } from './bundle-files.ts'
import { quote, type FindingList } from './findings.ts'
import { jsonLines } from './jsonl-checks.ts'
import { describeTrial, recordKey, trialKeyString, type TrialKey } from './layout.ts'
import { isOtlpTraceRequest } from './otlp-shape.ts'
import { SpanIdSet } from './span-id-set.ts'
import { checkSchema } from './untrusted-json.ts'

/** A span whose parent had not been seen when it was read: its parent may still come, or never. */
interface PendingSpan {
  parent: string
  where: string
}

type TaskSpans = Map<string, { key: TrialKey; outcome: unknown; where: string }>

/**
 * spans.jsonl, when the bundle has one (bundles written before it existed, or by writeBundle() without derived
 * files, do not): OTLP JSON lines that form one trace under one `eval.run`, with one `eval.task` per trial of
 * scores.json carrying that trial's outcome. What the span code wrote is then what the run was, and a collector
 * that takes the file gets a whole tree.
 */
export async function readSpans(
  files: BundleFiles,
  scores: ScoresRecords | undefined,
  findings: FindingList,
): Promise<void> {
  if (!files.has(SPANS_FILE)) return
  const invalid = { key: `${SPANS_FILE}:invalid`, label: 'invalid lines' }
  const tree = new SpanTreeChecker(findings)
  const visit = jsonLines(SPANS_FILE, 'spans', findings, (value, where, plain) => {
    if (plain && isOtlpTraceRequest(value)) {
      tree.add(value as OtlpTraceRequest, where)
      return
    }
    const parsed = checkSchema(OtlpTraceRequest, value)
    if (parsed.ok) tree.add(parsed.data, where)
    else {
      findings.add(
        'spans',
        SPANS_FILE,
        `${where}: not an OTLP ExportTraceServiceRequest: ${parsed.problem}`,
        invalid,
      )
    }
  })
  if (await files.readLines(SPANS_FILE, visit)) tree.finish(scores)
}

/**
 * The rules over spans.jsonl's requests, one request at a time. Memory: 8 bytes per span id (SpanIdSet), plus the
 * roots, the spans whose parent came after them (few: a writer puts a parent before its children) and one entry
 * per eval.task span. Never the spans themselves.
 */
export class SpanTreeChecker {
  private readonly ids = new SpanIdSet()
  private readonly roots: string[] = []
  private readonly pending: PendingSpan[] = []
  private readonly traceIds = new Set<string>()
  private readonly tasks: TaskSpans = new Map()

  constructor(private readonly findings: FindingList) {}

  /** Spans held whole (their name or where they are), not just as an id: the roots and those still pending. */
  get heldSpans(): number {
    return this.roots.length + this.pending.length
  }

  /** A request that matches the schema; `where` locates it ("line 12"). */
  add(request: OtlpTraceRequest, where: string): void {
    const { findings, ids } = this
    for (const span of spansOf(request)) {
      const at = () => `${where}: span ${quote(span.name)} ${span.spanId}`
      this.traceIds.add(span.traceId)
      if (ids.has(span.spanId)) {
        findings.add('spans', SPANS_FILE, `${at()}: its id is used by another span`, {
          key: `${SPANS_FILE}:duplicate-ids`,
          label: 'spans sharing an id',
        })
        continue
      }
      ids.add(span.spanId)
      const parent = span.parentSpanId ?? ''
      if (parent === '') this.roots.push(span.name)
      else if (!ids.has(parent)) this.pending.push({ parent, where: at() })
      if (endsBeforeStart(span)) {
        findings.add('spans', SPANS_FILE, `${at()}: ends before it starts`, {
          key: `${SPANS_FILE}:times`,
          label: 'spans ending before they start',
        })
      }
      if (span.name === SPAN.task) addTask(span, at(), this.tasks, findings)
    }
  }

  finish(scores: ScoresRecords | undefined): void {
    const { findings, roots } = this
    if (this.traceIds.size > 1) {
      findings.add('spans', SPANS_FILE, `holds ${this.traceIds.size} traces; a run's spans are one trace`)
    }
    if (roots.length !== 1 || roots[0]! !== SPAN.run) {
      const names = roots.map((name) => quote(name)).join(', ') || 'none'
      findings.add(
        'spans',
        SPANS_FILE,
        `has ${roots.length} root spans (${names}); it should have one, ${SPAN.run}`,
      )
    }
    for (const span of this.pending) {
      if (!this.ids.has(span.parent)) {
        findings.add('spans', SPANS_FILE, `${span.where}: its parent ${span.parent} is not in the file`, {
          key: `${SPANS_FILE}:orphans`,
          label: 'spans whose parent is missing',
        })
      }
    }
    if (scores) checkTrials(scores, this.tasks, findings)
  }
}

function spansOf(request: OtlpTraceRequest): OtlpSpan[] {
  return request.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
}

function addTask(span: OtlpSpan, at: string, tasks: TaskSpans, findings: FindingList): void {
  const benchmark = attribute(span, AEO.benchmarkId)
  const taskId = attribute(span, AEO.taskId)
  const trial = Number(attribute(span, AEO.trial))
  if (typeof benchmark !== 'string' || typeof taskId !== 'string' || !Number.isInteger(trial)) {
    findings.add('spans', SPANS_FILE, `${at}: does not name its benchmark, task and trial`, {
      key: `${SPANS_FILE}:task-ids`,
      label: `${SPAN.task} spans that do not name their trial`,
    })
    return
  }
  const key = { benchmark, taskId, trial }
  const k = trialKeyString(key)
  if (tasks.has(k)) {
    findings.add('spans', SPANS_FILE, `${at}: a second ${SPAN.task} span of ${describeTrial(key)}`, {
      key: `${SPANS_FILE}:task-twice`,
      label: `trials with more than one ${SPAN.task} span`,
    })
    return
  }
  tasks.set(k, { key, outcome: attribute(span, AEO.outcome), where: at })
}

/** One eval.task span per trial of scores.json, with its outcome, and none of a trial it does not have. */
function checkTrials(scores: ScoresRecords, tasks: TaskSpans, findings: FindingList): void {
  const known = new Set<string>()
  for (const trial of scores.trials) {
    const key = recordKey(trial)
    const k = trialKeyString(key)
    known.add(k)
    const task = tasks.get(k)
    if (!task) {
      findings.add('spans', SPANS_FILE, `has no ${SPAN.task} span for ${describeTrial(key)}`, {
        key: `${SPANS_FILE}:missing-task`,
        label: `trials without an ${SPAN.task} span`,
      })
    } else if (task.outcome !== trial.outcome) {
      findings.add(
        'spans',
        SPANS_FILE,
        `${task.where}: outcome ${quote(String(task.outcome))}, but scores.json has ${quote(trial.outcome)}`,
        { key: `${SPANS_FILE}:outcome`, label: `${SPAN.task} spans whose outcome differs from scores.json` },
      )
    }
  }
  for (const [k, task] of tasks) {
    if (known.has(k)) continue
    findings.add('spans', SPANS_FILE, `${task.where}: ${describeTrial(task.key)} is not in scores.json`, {
      key: `${SPANS_FILE}:unknown-task`,
      label: `${SPAN.task} spans of trials scores.json does not have`,
    })
  }
}

/** A string or integer attribute's value; undefined when absent or of another type. */
function attribute(span: OtlpSpan, key: string): string | number | undefined {
  const value = span.attributes?.find((a) => a.key === key)?.value as
    { stringValue?: unknown; intValue?: unknown } | undefined
  if (typeof value?.stringValue === 'string') return value.stringValue
  if (typeof value?.intValue === 'string' || typeof value?.intValue === 'number')
    return Number(value.intValue)
  return undefined
}

function endsBeforeStart(span: OtlpSpan): boolean {
  const start = span.startTimeUnixNano
  const end = span.endTimeUnixNano
  // Digit strings of one length compare as their numbers do: no BigInt for the usual case.
  if (typeof start === 'string' && typeof end === 'string' && start.length === end.length) return end < start
  return nanos(end) < nanos(start)
}

/** OTLP times: strings of digits, or numbers (taken as they come). */
function nanos(value: string | number): bigint {
  return typeof value === 'string' ? BigInt(value) : BigInt(Math.trunc(value))
}
