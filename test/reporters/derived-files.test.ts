// The bundle's derived files when the trials' spans were streamed during the run: derivedRunFiles appends the run
// line to the streamed file and moves it into the bundle as its spans.jsonl (which validate-bundle accepts with the run line
// last), and the export sends that file's lines to a collector on 127.0.0.1.
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { derivedRunFiles } from '../../reporters/derived-files.ts'
import { DurableFileWriter, validateBundle, writeBundle } from '../../src/bundles/index.ts'
import { otlpSpans, parseOtlpLines, RunSpanWriter } from '../../src/observability/index.ts'
import { bundleInput, makeEvents, tempDir } from '../bundles/fixtures.ts'
import { startOtlpReceiver, type OtlpReceiver } from '../observability/otlp-receiver.ts'

let receiver: OtlpReceiver | undefined
let work: { path: string; remove: () => Promise<void> } | undefined
afterEach(async () => {
  await receiver?.close()
  await work?.remove()
  receiver = work = undefined
})

describe('derivedRunFiles with spans streamed during the run', () => {
  it('seals the streamed file as spans.jsonl, valid, with the run line last, and exports its lines', async () => {
    work = await tempDir('aeo-derived-')
    const input = await bundleInput(join(work.path, 'run'))
    const { metadata, trials, summary } = input

    // As the seal copies each trial's line in bundle order into the open file.
    const writer = new RunSpanWriter({ startedAt: metadata.startedAt, env: {} })
    const path = join(work.path, 'sorted.spans.jsonl')
    const file = await DurableFileWriter.create(path)
    const trialLines: string[] = []
    for (const trial of trials) {
      const line = writer.trialSpanLine(trial, makeEvents(trial))
      trialLines.push(line)
      await file.write(`${line}\n`)
    }

    receiver = await startOtlpReceiver()
    const derived = derivedRunFiles(
      { metadata, trials, summary, spans: { writer, file, path } },
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    )
    const bundle = await writeBundle({ ...input, derivedFiles: derived.derivedFiles })
    expect(await validateBundle(bundle)).toEqual([])

    const written = (await readFile(join(bundle, 'spans.jsonl'), 'utf8')).trimEnd().split('\n')
    expect(written).toHaveLength(trials.length + 1)
    expect(written.slice(0, trials.length)).toEqual(trialLines)
    const runSpans = otlpSpans(parseOtlpLines(written.at(-1)!))
    expect(runSpans.map((s) => s.name)).toEqual(['eval.run', 'eval.score', 'eval.report'])
    expect(runSpans[0]!.spanId).toBe(writer.runSpanId)
    const tasks = otlpSpans(parseOtlpLines(written.join('\n'))).filter((s) => s.name === 'eval.task')
    expect(tasks.every((t) => t.parentSpanId === writer.runSpanId)).toBe(true)

    expect(existsSync(path)).toBe(false)
    expect(await derived.exportSpans(bundle)).toBeNull()
    expect(receiver.requests.map((r) => r.body)).toEqual(written)
  })
})
