import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../src/core/index.ts'
import { readBundle } from '../../src/bundles/index.ts'
import { buildBundle, copyBundle, readTraceLines, RUN_ID, tempDir, writeTraceLines } from './fixtures.ts'

let work: Awaited<ReturnType<typeof tempDir>>
let pristine: string
let copies = 0
beforeAll(async () => {
  work = await tempDir('aeo-reader-')
  pristine = await buildBundle(work.path)
})
afterAll(async () => work.remove())

const fresh = () => copyBundle(pristine, join(work.path, `copy-${++copies}`))

async function caught(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise
  } catch (e) {
    return e as Error & { code?: string }
  }
  throw new Error('expected an error')
}

describe('readBundle', () => {
  it('reads a valid bundle in strict mode', async () => {
    const bundle = await readBundle(pristine, { mode: 'strict' })
    expect(bundle.metadata.runId).toBe(RUN_ID)
    expect(bundle.scores.trials).toHaveLength(6)
    expect(bundle.events).toHaveLength(42)
    expect(bundle.events[0]).toMatchObject({ taskId: 'task-0', trial: 0, step: 0, kind: 'agent.plan' })
    expect(bundle.report).toBe('# Run fixture\n')
    expect(bundle.replayCommand).toBe('npx vitest run --project evals\n')
    expect(bundle.manifest.files).toHaveLength(6)
  })

  it('throws BUNDLE_INVALID listing the problems in strict mode', async () => {
    const dir = await fresh()
    const lines = await readTraceLines(dir)
    lines[3] = '{broken'
    await writeTraceLines(dir, lines)
    const error = await caught(readBundle(dir))
    expect(isAgentEvalOpsError(error, 'BUNDLE_INVALID')).toBe(true)
    expect(error.message).toMatch(/traces\.jsonl: line 4: not valid JSON/)
    expect(error.message).toMatch(/traces\.jsonl: (size|sha256) .*manifest\.json/)
  })

  it('returns what parses and the problems in recover mode', async () => {
    const dir = await fresh()
    const lines = await readTraceLines(dir)
    lines[3] = '{broken'
    await writeTraceLines(dir, lines)
    await writeFile(join(dir, 'scores.json'), '{"truncated": ')
    const bundle = await readBundle(dir, { mode: 'recover' })
    expect(bundle.events).toHaveLength(41)
    expect(bundle.metadata?.runId).toBe(RUN_ID)
    expect(bundle.scores).toBeUndefined()
    expect(bundle.report).toBe('# Run fixture\n')
    const files = bundle.problems.map((p) => p.file)
    expect(files).toContain('traces.jsonl')
    expect(files).toContain('scores.json')
  })

  it('throws BUNDLE_NOT_FOUND for a missing folder in either mode', async () => {
    for (const mode of ['strict', 'recover'] as const) {
      const error = await caught(readBundle(join(work.path, 'missing'), { mode } as { mode: 'recover' }))
      expect(isAgentEvalOpsError(error, 'BUNDLE_NOT_FOUND')).toBe(true)
    }
  })

  it('refuses a newer format in either mode, saying to upgrade', async () => {
    const dir = await fresh()
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as object
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, formatVersion: 7 }))
    for (const mode of ['strict', 'recover'] as const) {
      const error = await caught(readBundle(dir, { mode } as { mode: 'recover' }))
      expect(isAgentEvalOpsError(error, 'BUNDLE_INVALID')).toBe(true)
      expect(error.message).toMatch(/formatVersion 7 is newer .* upgrade agentevalops/)
    }
  })
})
