// The spans check holds what it must remember about spans.jsonl compactly: span ids as 8-byte entries, and whole
// spans only for the roots and those whose parent had not come yet. Measured structurally (what the checker holds
// for N spans), not with a clock or the heap: a long run's file of a million spans must not cost a Map of them.
import { describe, expect, it } from 'vitest'
import { FindingList } from '../../src/bundles/findings.ts'
import { SpanTreeChecker } from '../../src/bundles/span-checks.ts'
import { SpanIdSet } from '../../src/bundles/span-id-set.ts'
import type { OtlpSpan, OtlpTraceRequest } from '../../src/core/index.ts'

const TRACE_ID = 'ab'.repeat(16)
const CHILDREN = 20

const hex16 = (n: number) => n.toString(16).padStart(16, '0')

function span(id: number, parent: number | undefined, name: string): OtlpSpan {
  return {
    traceId: TRACE_ID,
    spanId: hex16(id),
    ...(parent === undefined ? {} : { parentSpanId: hex16(parent) }),
    name,
    startTimeUnixNano: '1000',
    endTimeUnixNano: '2000',
  }
}

const request = (spans: OtlpSpan[]): OtlpTraceRequest => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] })

/** A run's spans.jsonl as the span code writes it: eval.run, then a line per trial of its task span and children. */
function feed(checker: SpanTreeChecker, trials: number, runLast = false): number {
  let id = 1
  const run = id++
  const lines: OtlpTraceRequest[] = []
  for (let t = 0; t < trials; t++) {
    const task = id++
    const spans = [span(task, run, 'eval.task child')]
    for (let c = 0; c < CHILDREN; c++) spans.push(span(id++, task, 'chat'))
    lines.push(request(spans))
  }
  const runLine = request([span(run, undefined, 'eval.run')])
  const all = runLast ? [...lines, runLine] : [runLine, ...lines]
  all.forEach((line, i) => checker.add(line, `line ${i + 1}`))
  return id - 1
}

describe('the spans check', () => {
  it('holds no span whole beyond the root, however many spans the file has', () => {
    for (const trials of [100, 1_000, 10_000]) {
      const findings = new FindingList()
      const checker = new SpanTreeChecker(findings)
      const spans = feed(checker, trials)
      expect(spans).toBe(1 + trials * (CHILDREN + 1))
      expect(checker.heldSpans).toBe(1)
      checker.finish(undefined)
      expect(findings.toArray()).toEqual([])
    }
  })

  it('holds the spans that came before their parent until the end, and finds none orphaned', () => {
    const findings = new FindingList()
    const checker = new SpanTreeChecker(findings)
    feed(checker, 50, true)
    // The 50 task spans wait for eval.run, which comes last; their children came after them.
    expect(checker.heldSpans).toBe(1 + 50)
    checker.finish(undefined)
    expect(findings.toArray()).toEqual([])
  })

  it('still reports an orphan, a duplicate id and a second root', () => {
    const findings = new FindingList()
    const checker = new SpanTreeChecker(findings)
    feed(checker, 3)
    checker.add(
      request([span(9_999, 8_888, 'lost'), span(2, 1, 'again'), span(7_777, undefined, 'other')]),
      'line 9',
    )
    checker.finish(undefined)
    const messages = findings.toArray().map((f) => f.message)
    expect(messages).toEqual([
      'line 9: span "again" 0000000000000002: its id is used by another span',
      'has 2 root spans ("eval.run", "other"); it should have one, eval.run',
      'line 9: span "lost" 000000000000270f: its parent 00000000000022b8 is not in the file',
    ])
  })
})

describe('SpanIdSet', () => {
  it('is a set of span ids, the all-zero one included, that grows as needed', () => {
    const set = new SpanIdSet()
    const ids = Array.from({ length: 50_000 }, (_, i) => hex16(i * 2_654_435_761 + 7))
    for (const id of ids) set.add(id)
    for (const id of ids) set.add(id)
    expect(set.size).toBe(ids.length)
    expect(ids.every((id) => set.has(id))).toBe(true)
    expect(set.has(hex16(8))).toBe(false)
    expect(set.has('0000000000000000')).toBe(false)
    set.add('0000000000000000')
    expect(set.has('0000000000000000')).toBe(true)
    expect(set.has('ffffffffffffffff')).toBe(false)
    set.add('ffffffffffffffff')
    expect(set.has('ffffffffffffffff')).toBe(true)
    expect(set.size).toBe(ids.length + 2)
  })
})
