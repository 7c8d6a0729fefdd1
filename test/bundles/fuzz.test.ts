// The bundle reader against damaged bundles, property-based: whatever a folder holds, inspectBundle, readBundle,
// validateBundle and `validate-bundle --json` answer with findings or an AgentEvalOpsError, in bounded time and
// memory. 10,000 damaged bundles in all, from a fixed seed so that a failure reproduces.
import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { execFile, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CHECK_NAMES,
  inspectBundle,
  readBundle,
  validateBundle,
  type Finding,
} from '../../src/bundles/index.ts'
import { listBundleFiles } from '../../src/bundles/manifest.ts'
import { validateBundleCommand, type ValidateBundleJson } from '../../src/cli/commands/validate-bundle.ts'
import { BUNDLE_FORMAT_VERSION, isAgentEvalOpsError, sha256 } from '../../src/core/index.ts'
import { buildBundle, copyBundle, restampManifest, RUN_ID, tempDir } from './fixtures.ts'
import { applyEdits, byteEdit, jsonEdit, type Edit } from './mutations.ts'

const SEED = 20_251_130
const TIME_LIMIT_MS = 5_000
const HEAP_GROWTH_LIMIT = 200 * 1024 * 1024
/** Findings are one line each: even about a megabyte-long value, a message stays short. */
const MAX_MESSAGE_CHARS = 4_096
const MANIFEST = 'manifest.json'
const CREATED_AT = '2025-01-02T03:04:16.000Z'

let work: Awaited<ReturnType<typeof tempDir>>
/** The valid bundle's files, by path: every damaged bundle starts from these bytes. */
let pristine: Map<string, Buffer>
let paths: string[]
/** The valid bundle as built, copied once into each property's own folder. */
let built: string
let outside: string
let slots = 0
const hasMkfifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--help']).error === undefined

beforeAll(async () => {
  work = await tempDir('aeo-fuzz-')
  built = await buildBundle(join(work.path, 'build'))
  paths = (await listBundleFiles(built)).files
  pristine = new Map()
  for (const path of paths) pristine.set(path, await readFile(join(built, path)))
  outside = join(work.path, 'outside')
  await mkdir(outside)
  await writeFile(join(outside, 'secret.txt'), 'not part of any bundle\n')

  // The in-memory re-stamp below must be exactly what restampManifest writes, or the "deeper checks" runs would
  // fail at the manifest instead of reaching them.
  const restamped = await copyBundle(built, join(work.path, 'restamped'))
  await restampManifest(restamped)
  expect(stampManifest(pristine).toString()).toBe((await readFile(join(restamped, MANIFEST))).toString())
})
afterAll(async () => work.remove())

/** restampManifest, without a disk round trip: the manifest a folder holding `files` deserves. */
function stampManifest(files: ReadonlyMap<string, Buffer>): Buffer {
  const entries = [...files.keys()]
    .filter((path) => path !== MANIFEST)
    .sort()
    .map((path) => ({ path, sha256: sha256(files.get(path)!), size: files.get(path)!.length }))
  const manifest = {
    formatVersion: BUNDLE_FORMAT_VERSION,
    runId: RUN_ID,
    createdAt: CREATED_AT,
    files: entries,
  }
  return Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)
}

type Reader = 'inspect' | 'validate' | 'strict' | 'recover' | 'cli'
type FsDamage = {
  kind: 'delete' | 'directory' | 'symlink-file' | 'symlink-dir' | 'fifo' | 'extra'
  file: number
}

interface Damage {
  files: { file: number; edits: Edit[] }[]
  /** Re-stamp the manifest after editing the other files, so that the checks behind the checksums run. */
  restamp: boolean
  fs: FsDamage | null
  reader: Reader
}

const reader = fc.constantFrom<Reader>('inspect', 'validate', 'strict', 'recover', 'cli')
const fsDamage: fc.Arbitrary<FsDamage> = fc.record({
  kind: fc.constantFrom('delete', 'directory', 'symlink-file', 'symlink-dir', 'fifo', 'extra'),
  file: fc.nat(),
})

function damage(edit: fc.Arbitrary<Edit>, options: { maxFiles: number; fs: boolean }): fc.Arbitrary<Damage> {
  return fc.record({
    files: fc.array(fc.record({ file: fc.nat(), edits: fc.array(edit, { minLength: 1, maxLength: 3 }) }), {
      minLength: 1,
      maxLength: options.maxFiles,
    }),
    restamp: fc.boolean(),
    fs: options.fs ? fc.option(fsDamage, { freq: 3 }) : fc.constant(null),
    reader,
  })
}

interface Applied {
  /** Files other than the manifest whose bytes differ from the valid bundle's. */
  changed: string[]
  manifestChanged: boolean
  /** Files written with other bytes: rewriting them repairs them. */
  rewritten: string[]
  /** Entries deleted or swapped for something else (a folder, a symlink) or added: removed before the repair. */
  replaced: string[]
  /** Where the FIFO was moved to, if it was. */
  fifoAt: string | undefined
}

async function apply(dir: string, d: Damage, fifo: string | undefined): Promise<Applied> {
  const contents = new Map(pristine)
  const manifestEdits: Edit[] = []
  for (const { file, edits } of d.files) {
    const path = paths[file % paths.length]!
    if (path === MANIFEST) manifestEdits.push(...edits)
    else contents.set(path, applyEdits(path, contents.get(path)!, edits))
  }
  if (d.restamp) contents.set(MANIFEST, stampManifest(contents))
  if (manifestEdits.length > 0)
    contents.set(MANIFEST, applyEdits(MANIFEST, contents.get(MANIFEST)!, manifestEdits))

  const rewritten: string[] = []
  for (const [path, bytes] of contents) {
    if (bytes.equals(pristine.get(path)!)) continue
    await writeFile(join(dir, path), bytes)
    rewritten.push(path)
  }
  const replaced: string[] = []
  if (d.fs) {
    const path = paths[d.fs.file % paths.length]!
    const target = join(dir, path)
    replaced.push(path)
    if (d.fs.kind !== 'extra') await rm(target, { force: true })
    switch (d.fs.kind) {
      case 'directory':
        await mkdir(join(target, 'inner'), { recursive: true })
        break
      case 'symlink-file':
        await symlink(join(outside, 'secret.txt'), target)
        break
      case 'symlink-dir':
        await symlink(outside, target, 'dir')
        break
      case 'fifo':
        // Moved in and out rather than made each time: a process per run would cost more than the run.
        if (fifo) await rename(fifo, target)
        break
      case 'extra':
        await writeFile(join(dir, 'extra.bin'), Buffer.from([0xff, 0x00, 0x0a]))
        replaced.push('extra.bin')
        break
      case 'delete':
        break
    }
  }
  const changed = [...contents.keys()].filter(
    (p) => p !== MANIFEST && !contents.get(p)!.equals(pristine.get(p)!),
  )
  const manifestChanged = !contents.get(MANIFEST)!.equals(pristine.get(MANIFEST)!)
  const fifoAt = d.fs?.kind === 'fifo' && fifo ? replaced[0] : undefined
  return { changed, manifestChanged, rewritten, replaced, fifoAt }
}

/** Puts the valid bundle back: rewritten files get their bytes again, replaced entries are removed first. */
async function repair(dir: string, applied: Applied, fifo: string | undefined): Promise<void> {
  if (fifo && applied.fifoAt) await rename(join(dir, applied.fifoAt), fifo)
  for (const path of applied.replaced) await rm(join(dir, path), { recursive: true, force: true })
  for (const path of new Set([...applied.rewritten, ...applied.replaced])) {
    const bytes = pristine.get(path)
    if (bytes) await writeFile(join(dir, path), bytes)
  }
}

/** Runs the reader; undefined findings mean it threw (an AgentEvalOpsError, or the test fails). */
async function read(dir: string, which: Reader): Promise<Finding[] | undefined> {
  switch (which) {
    case 'inspect':
      return (await inspectBundle(dir, { collectEvents: true })).findings
    case 'validate':
      return validateBundle(dir)
    case 'strict':
      await readBundle(dir)
      return []
    case 'recover':
      return (await readBundle(dir, { mode: 'recover' })).problems
    case 'cli': {
      const stdout: string[] = []
      const io = { out: (line: string) => void stdout.push(line), err: () => undefined }
      const code = await validateBundleCommand.run(['--json', dir], io)
      const report = JSON.parse(stdout.join('\n')) as ValidateBundleJson
      expect(code).toBe(report.ok ? 0 : 1)
      return report.findings
    }
  }
}

function withinTime<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the reader took more than ${TIME_LIMIT_MS} ms`)),
      TIME_LIMIT_MS,
    )
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

const checkNames = new Set<string>(CHECK_NAMES)

/** One damaged bundle through one reader: the properties every run must have. */
async function runOnce(dir: string, d: Damage, fifo: string | undefined): Promise<void> {
  const applied = await apply(dir, d, fifo)
  try {
    let findings: Finding[] | undefined
    try {
      findings = await withinTime(read(dir, d.reader))
    } catch (e) {
      if (!isAgentEvalOpsError(e, 'BUNDLE_INVALID') && !isAgentEvalOpsError(e, 'BUNDLE_NOT_FOUND')) throw e
    }
    const damaged = d.fs !== null || applied.changed.length > 0 || applied.manifestChanged
    if (findings === undefined) {
      // Only a damaged bundle may be refused.
      expect(damaged).toBe(true)
      return
    }
    for (const finding of findings) {
      expect(checkNames.has(finding.check), JSON.stringify(finding)).toBe(true)
      expect(typeof finding.file).toBe('string')
      expect(finding.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS)
    }
    if (!damaged) expect(findings).toEqual([])
    // The manifest vouches for every byte of the other files: a change it was not re-stamped for is always found.
    if (!d.restamp && applied.changed.length > 0) expect(findings.length).toBeGreaterThan(0)
  } finally {
    await repair(dir, applied, fifo)
  }
}

/** Heap in use, sampled every few runs: the readers must not keep anything of the bundles they read. */
const heap = { baseline: 0, max: 0, runs: 0 }

async function fuzz(arbitrary: fc.Arbitrary<Damage>, numRuns: number): Promise<void> {
  const slot = ++slots
  const dir = await copyBundle(built, join(work.path, `slot-${slot}`))
  // Where there is no mkfifo (Windows), a FIFO damage just deletes the file.
  const fifo = hasMkfifo ? join(work.path, `fifo-${slot}`) : undefined
  if (fifo) await promisify(execFile)('mkfifo', [fifo])
  await fc.assert(
    fc.asyncProperty(arbitrary, async (d) => {
      await runOnce(dir, d, fifo)
      if (++heap.runs % 25 === 0) heap.max = Math.max(heap.max, process.memoryUsage().heapUsed)
    }),
    { numRuns, seed: SEED, endOnFailure: true },
  )
  // A repaired folder is the valid bundle again: what was found was the damage, not leftovers of earlier runs.
  expect(await validateBundle(dir)).toEqual([])
}

// The properties run concurrently, each in its own folder: a run waits on the file system about half the time. Their
// time limit is a bound for a hang, not a speed check: beside another test file on a 2-core machine they take twice as long.
describe.concurrent('the bundle reader on damaged bundles (property-based, seeded)', () => {
  beforeAll(() => {
    heap.baseline = process.memoryUsage().heapUsed
    heap.max = heap.baseline
  })
  afterAll(() => {
    expect(heap.runs).toBeGreaterThanOrEqual(10_000)
    expect(heap.max - heap.baseline).toBeLessThan(HEAP_GROWTH_LIMIT)
  })

  it('byte-level damage to one file: truncations, bit flips, insertions, deletions', async () => {
    await fuzz(damage(byteEdit, { maxFiles: 1, fs: false }), 4_000)
  }, 300_000)

  it('JSON-level damage to one file: other types, huge numbers, deep nesting, duplicate and __proto__ keys', async () => {
    await fuzz(damage(jsonEdit, { maxFiles: 1, fs: false }), 4_000)
  }, 300_000)

  it('mixed damage to several files, with folders, symlinks and extra files swapped in', async () => {
    await fuzz(damage(fc.oneof(byteEdit, jsonEdit), { maxFiles: 3, fs: true }), 2_000)
  }, 300_000)
})
