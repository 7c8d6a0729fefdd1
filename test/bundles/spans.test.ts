// validate-bundle on spans.jsonl: a bundle written with its derived files (the spans the span code drew from the
// run) passes; each way of breaking the file's tree or its agreement with scores.json is a finding of the `spans`
// check, and a bundle without the file (older ones, writeBundle() without derived files) needs none.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { derivedRunFiles } from '../../reporters/derived-files.ts'
import { validateBundle, writeBundle } from '../../src/bundles/index.ts'
import type { OtlpTraceRequest } from '../../src/core/index.ts'
import { bundleInput, copyBundle, restampManifest, tempDir } from './fixtures.ts'

let work: { path: string; remove: () => Promise<void> }
let original: string
let plain: string

beforeAll(async () => {
  work = await tempDir('aeo-spans-check-')
  const input = await bundleInput(join(work.path, 'with-spans'))
  const derived = derivedRunFiles(
    { metadata: input.metadata, trials: input.trials, summary: input.summary },
    {},
  )
  original = await writeBundle({ ...input, derivedFiles: derived.derivedFiles })
  plain = await writeBundle(await bundleInput(join(work.path, 'plain')))
})

afterAll(async () => {
  await work.remove()
})

type Span = OtlpTraceRequest['resourceSpans'][number]['scopeSpans'][number]['spans'][number]

/** A copy of the bundle whose spans.jsonl went through `edit` (each line's spans, in place), manifest restamped. */
async function withSpans(
  name: string,
  edit: (spans: Span[], line: number) => Span[] | void,
): Promise<string> {
  const dir = await copyBundle(original, join(work.path, name))
  const file = join(dir, 'spans.jsonl')
  const lines = (await readFile(file, 'utf8')).trim().split('\n')
  const edited = lines.map((text, i) => {
    const request = JSON.parse(text) as OtlpTraceRequest
    for (const rs of request.resourceSpans)
      for (const ss of rs.scopeSpans) ss.spans = edit(ss.spans, i) ?? ss.spans
    return JSON.stringify(request)
  })
  await writeFile(file, edited.map((l) => `${l}\n`).join(''))
  await restampManifest(dir)
  return dir
}

const attribute = (span: Span, key: string) => span.attributes?.find((a) => a.key === key)
const spanFindings = async (dir: string) =>
  (await validateBundle(dir)).filter((f) => f.check === 'spans').map((f) => f.message)

describe('validate-bundle: spans.jsonl', () => {
  it('passes the spans the span code drew, and a bundle that has none', async () => {
    expect(await readFile(join(original, 'spans.jsonl'), 'utf8')).toContain('"eval.task"')
    expect(await validateBundle(original)).toEqual([])
    expect(await validateBundle(plain)).toEqual([])
  })

  it('finds an eval.task whose outcome is not the one scores.json has', async () => {
    const dir = await withSpans('outcome', (spans) => {
      for (const span of spans) {
        const outcome = attribute(span, 'agentevalops.outcome')
        if (span.name === 'eval.task' && outcome?.value) outcome.value = { stringValue: 'passed' }
      }
    })
    const scores = JSON.parse(await readFile(join(dir, 'scores.json'), 'utf8')) as {
      trials: { outcome: string }[]
    }
    const notPassed = scores.trials.filter((t) => t.outcome !== 'passed').length
    expect(notPassed).toBeGreaterThan(0)
    const found = await spanFindings(dir)
    expect(found).toHaveLength(notPassed)
    expect(found[0]).toMatch(/outcome "passed", but scores\.json has "(?!passed")[a-z_]+"$/)
  })

  it('finds a trial without its eval.task span, and the spans left without their parent', async () => {
    const dir = await withSpans('missing-task', (spans, line) =>
      line === 1 ? spans.filter((s) => s.name !== 'eval.task') : undefined,
    )
    const found = await spanFindings(dir)
    expect(found.some((m) => /has no eval\.task span for task "[^"]+" trial \d/.test(m))).toBe(true)
    expect(found.some((m) => /its parent [0-9a-f]{16} is not in the file/.test(m))).toBe(true)
  })

  it('finds a second trace, a second root, a span that ends before it starts, and a line that is not OTLP', async () => {
    const dir = await withSpans('broken-tree', (spans, line) => {
      if (line !== 1) return
      const [first, second] = spans
      first!.traceId = 'f'.repeat(32)
      delete second!.parentSpanId
      second!.endTimeUnixNano = '1'
    })
    const file = join(dir, 'spans.jsonl')
    await writeFile(
      file,
      `${await readFile(file, 'utf8')}{"resourceSpans":[{"scopeSpans":[{"spans":[{}]}]}]}\n`,
    )
    await restampManifest(dir)
    const found = await spanFindings(dir)
    expect(found).toEqual(
      expect.arrayContaining([
        "holds 2 traces; a run's spans are one trace",
        expect.stringMatching(/has 2 root spans \("eval\.run", "[^"]+"\); it should have one, eval\.run/),
        expect.stringMatching(/: ends before it starts$/),
        expect.stringMatching(/^line \d+: not an OTLP ExportTraceServiceRequest/),
      ]),
    )
  })
})
