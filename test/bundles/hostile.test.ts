// The worst shapes a bundle folder can take, one by one: each must end in findings (or an AgentEvalOpsError from
// readBundle), never a crash, a hang, or a read outside the bundle. fuzz.test.ts covers the space around them.
import { spawnSync } from 'node:child_process'
import { chmod, mkdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inspectBundle, readBundle, validateBundle, type Finding } from '../../src/bundles/index.ts'
import { isSafeRelativePath } from '../../src/bundles/layout.ts'
import { MAX_JSON_DEPTH, MAX_LINE_BYTES } from '../../src/bundles/limits.ts'
import { isAgentEvalOpsError } from '../../src/core/index.ts'
import {
  buildBundle,
  copyBundle,
  readTraceLines,
  restampManifest,
  tempDir,
  writeTraceLines,
} from './fixtures.ts'
import { nestedArrays } from './mutations.ts'

let work: Awaited<ReturnType<typeof tempDir>>
let pristine: string
let outside: string
let copies = 0
const SECRET = 'the content of a file outside the bundle'

beforeAll(async () => {
  work = await tempDir('aeo-hostile-')
  pristine = await buildBundle(join(work.path, 'build'))
  outside = join(work.path, 'outside')
  await mkdir(outside)
  await writeFile(join(outside, 'secret.txt'), SECRET)
})
afterAll(async () => work.remove())

const fresh = () => copyBundle(pristine, join(work.path, `copy-${++copies}`))

const canMkfifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--help']).error === undefined
const isRoot = process.getuid?.() === 0

function summary(findings: readonly Finding[]): string[] {
  return findings.map((f) => `${f.check} ${f.file}: ${f.message}`)
}

/** Replaces one trace event's tool arguments with `args` (raw JSON), re-stamped so only the content is at fault. */
async function withToolArgs(args: string): Promise<{ dir: string; line: number }> {
  const dir = await fresh()
  const lines = await readTraceLines(dir)
  const index = lines.findIndex((l) => l.includes('"agent.tool_call"'))
  lines[index] = lines[index]!.replace('{"expr":"2+2"}', args)
  await writeTraceLines(dir, lines)
  await restampManifest(dir)
  return { dir, line: index + 1 }
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (e) {
    return e
  }
  throw new Error('expected an error')
}

describe('deep nesting', () => {
  it('100,000 nested arrays as metadata.json are a finding, not a stack overflow', async () => {
    const dir = await fresh()
    await writeFile(join(dir, 'metadata.json'), nestedArrays(100_000))
    await restampManifest(dir)
    const findings = await validateBundle(dir)
    expect(findings).toContainEqual({
      check: 'json-syntax',
      file: 'metadata.json',
      message: `is JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
    })
    expect(isAgentEvalOpsError(await caught(readBundle(dir)), 'BUNDLE_INVALID')).toBe(true)
    const recovered = await readBundle(dir, { mode: 'recover' })
    expect(recovered.metadata).toBeUndefined()
    expect(recovered.scores?.trials).toHaveLength(6)
  })

  it('100,000 nested arrays inside a trace event are a finding on that line', async () => {
    const { dir, line } = await withToolArgs(nestedArrays(100_000))
    expect(summary(await validateBundle(dir))).toContain(
      `trace-schema traces.jsonl: line ${line}: JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
    )
  })

  it('leaves room for deeply nested real payloads: 400 levels of tool arguments are valid', async () => {
    const { dir } = await withToolArgs(nestedArrays(400))
    expect(await validateBundle(dir)).toEqual([])
  })
})

describe('symlinks', () => {
  it('refuses a file symlinked out of the bundle, without reading it', async () => {
    const dir = await fresh()
    await rm(join(dir, 'report.md'))
    await symlink(join(outside, 'secret.txt'), join(dir, 'report.md'))
    const found = await inspectBundle(dir)
    expect(summary(found.findings)).toEqual([
      'no-symlinks report.md: is a symbolic link (refused, never followed)',
    ])
    expect(found.report).toBeUndefined()
  })

  it('refuses a folder symlinked out of the bundle, without listing it', async () => {
    const dir = await fresh()
    await rm(join(dir, 'artifacts'), { recursive: true })
    await symlink(outside, join(dir, 'artifacts'), 'dir')
    expect(summary(await validateBundle(dir))).toEqual([
      'no-symlinks artifacts: is a symbolic link (refused, never followed)',
      'files-present artifacts/task-0/answer.txt: is listed in manifest.json but missing',
    ])
  })

  it.skipIf(process.platform !== 'linux')('never reads an endless device through a symlink', async () => {
    const dir = await fresh()
    await rm(join(dir, 'traces.jsonl'))
    await symlink('/dev/zero', join(dir, 'traces.jsonl'))
    const findings = await validateBundle(dir)
    expect(findings.find((f) => f.file === 'traces.jsonl')?.check).toBe('no-symlinks')
  })
})

describe('manifest paths', () => {
  it('flags every path that leaves the bundle, even one whose checksum matches a file out there', async () => {
    const dir = await fresh()
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { files: object[] }
    const hostile = [
      '../outside/secret.txt',
      '/etc/passwd',
      'a/../../b',
      './metadata.json',
      'artifacts//task-0/answer.txt',
      'C:\\Windows\\win.ini',
      'C:/Windows/win.ini',
      '\\\\server\\share\\x',
      'nul\u0000.txt',
    ]
    for (const path of hostile) manifest.files.push({ path, sha256: 'e'.repeat(64), size: 1 })
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest))
    const findings = await validateBundle(dir)
    expect(findings.map((f) => f.check)).toEqual(hostile.map(() => 'safe-paths'))
    expect(findings.every((f) => f.file === 'manifest.json')).toBe(true)
    for (const path of hostile) expect(isSafeRelativePath(path), path).toBe(false)
  })
})

describe('entries that are not files', () => {
  it.skipIf(!canMkfifo)('reports a FIFO where traces.jsonl should be, without waiting on it', async () => {
    const dir = await fresh()
    await rm(join(dir, 'traces.jsonl'))
    spawnSync('mkfifo', [join(dir, 'traces.jsonl')])
    spawnSync('mkfifo', [join(dir, 'artifacts', 'pipe')])
    expect(summary(await validateBundle(dir))).toEqual([
      'regular-files artifacts/pipe: is not a regular file',
      'regular-files traces.jsonl: is not a regular file',
    ])
  })

  it('reports a folder where scores.json should be', async () => {
    const dir = await fresh()
    await rm(join(dir, 'scores.json'))
    await mkdir(join(dir, 'scores.json'))
    await writeFile(join(dir, 'scores.json', 'inner.json'), '{}')
    const findings = summary(await validateBundle(dir))
    expect(findings).toContain('files-present scores.json: is missing (every bundle has one)')
    expect(findings).toContain('no-extra-files scores.json/inner.json: is not listed in manifest.json')
  })

  it('answers BUNDLE_NOT_FOUND for a file given as the bundle folder', async () => {
    const file = join(work.path, 'not-a-folder.txt')
    await writeFile(file, 'x')
    expect(summary(await validateBundle(file))[0]).toMatch(/^bundle-folder \.: .*not a bundle folder/)
    expect(isAgentEvalOpsError(await caught(readBundle(file)), 'BUNDLE_NOT_FOUND')).toBe(true)
  })

  it('reports an empty folder file by file', async () => {
    const dir = join(work.path, 'empty')
    await mkdir(dir)
    expect((await validateBundle(dir)).map((f) => `${f.check} ${f.file}`)).toEqual([
      'files-present manifest.json',
      'files-present metadata.json',
      'files-present traces.jsonl',
      'files-present scores.json',
      'files-present report.md',
      'files-present replay_command.txt',
    ])
  })

  it.skipIf(process.platform !== 'linux')('copes with a file name that is not UTF-8', async () => {
    const dir = await fresh()
    await writeFile(Buffer.concat([Buffer.from(`${dir}/bad-`), Buffer.from([0xff, 0xfe])]), 'x')
    const findings = await validateBundle(dir)
    expect(findings.length).toBeGreaterThan(0)
    expect(findings.every((f) => f.file.startsWith('bad-'))).toBe(true)
  })

  it.skipIf(isRoot || process.platform === 'win32')('reports a file it may not read', async () => {
    const dir = await fresh()
    await chmod(join(dir, 'report.md'), 0o000)
    expect(summary(await validateBundle(dir))).toEqual(['readable report.md: could not be opened (EACCES)'])
  })
})

describe('content', () => {
  it('skips an enormous line without holding it, and still checks the rest', async () => {
    const dir = await fresh()
    const lines = await readTraceLines(dir)
    const huge = 'x'.repeat(MAX_LINE_BYTES + 1)
    await writeTraceLines(dir, [...lines.slice(0, 3), huge, ...lines.slice(3)])
    await restampManifest(dir)
    const found = await inspectBundle(dir)
    expect(summary(found.findings)).toEqual([
      `size-limits traces.jsonl: line 4: ${MAX_LINE_BYTES + 1} bytes long, more than the 16 MiB a line may take`,
    ])
    expect(found.eventCount).toBe(42)
  })

  it('refuses files over their size limit without reading them: a 3 GiB report.md, a 600 MiB scores.json', async () => {
    const dir = await fresh()
    // Sparse: the file system stores none of it, and only a reader that reads it would notice.
    await truncate(join(dir, 'report.md'), 3 * 1024 ** 3)
    await truncate(join(dir, 'scores.json'), 600 * 1024 ** 2)
    const started = performance.now()
    const findings = summary(await validateBundle(dir))
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(findings.slice(0, 2)).toEqual([
      `size-limits scores.json: is ${600 * 1024 ** 2} bytes, more than the 500 MiB a reader loads: not checked further`,
      `size-limits report.md: is ${3 * 1024 ** 3} bytes, more than the 64 MiB a reader loads: not checked further`,
    ])
  })

  it('reports bytes that are not UTF-8, file by file and line by line', async () => {
    const dir = await fresh()
    const metadata = await readFile(join(dir, 'metadata.json'))
    const at = metadata.indexOf('fixture')
    metadata[at] = 0xff
    await writeFile(join(dir, 'metadata.json'), metadata)
    const traces = await readFile(join(dir, 'traces.jsonl'))
    traces[traces.indexOf('add the numbers')] = 0xc3
    await writeFile(join(dir, 'traces.jsonl'), traces)
    await restampManifest(dir)
    expect(summary(await validateBundle(dir))).toEqual([
      'utf8 metadata.json: is not valid UTF-8',
      'utf8 traces.jsonl: line 1: not valid UTF-8',
    ])
  })

  it('keeps __proto__ keys and duplicate keys as data, polluting nothing', async () => {
    const dir = await fresh()
    const text = await readFile(join(dir, 'metadata.json'), 'utf8')
    await writeFile(
      join(dir, 'metadata.json'),
      text.replace('{', '{"__proto__": {"polluted": true}, "runId": "first", "labels": {"__proto__": "x"},'),
    )
    await restampManifest(dir)
    const found = await inspectBundle(dir)
    expect(found.findings).toEqual([])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.getPrototypeOf(found.metadata)).toBe(Object.prototype)
  })

  it('reports numbers out of range (1e400, 2^64) and reads -0 as the 0 it is', async () => {
    const dir = await fresh()
    const manifest = await readFile(join(dir, 'manifest.json'), 'utf8')
    await writeFile(join(dir, 'manifest.json'), manifest.replace(/"size": \d+/, '"size": 1e400'))
    expect((await validateBundle(dir)).map((f) => `${f.check} ${f.file}`)).toEqual([
      'finite-numbers manifest.json',
      'manifest-schema manifest.json',
    ])

    const lines = await readTraceLines(dir)
    lines[0] = lines[0]!.replace('"step":0', '"step":18446744073709551616')
    lines[1] = lines[1]!.replace('"trial":0', '"trial":1e400')
    lines[2] = lines[2]!.replace('"step":2', '"step":-0')
    await writeTraceLines(dir, lines)
    await restampManifest(dir)
    // Lines 1 and 2 are refused, so line 3 (step -0) is where its trial starts: at step 0, as it should.
    expect((await validateBundle(dir)).map((f) => `${f.check} ${f.message.slice(0, 6)}`)).toEqual([
      'trace-schema line 1',
      'finite-numbers line 2',
      'trace-schema line 2',
      // The two refused events are missing from the trial's count too.
      'event-count trials',
    ])
  })
})
