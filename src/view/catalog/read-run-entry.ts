import { lstat } from 'node:fs/promises'
import { join } from 'node:path'
import * as z from 'zod'
import { isSafeRelativePath, newerVersionMessage, requiredFiles } from '../../bundles/layout.ts'
import { BUNDLE_FORMAT_VERSION, Manifest, RunMetadata, RunSummary, sha256 } from '../../core/index.ts'
import { parseSmallJson, parseSmallValue, readSmallFile, type Parsed } from './bundle-small-files.ts'
import type { IndexedRun } from './indexed-run.ts'
import { indexedRunOf, invalidRunOf } from './run-entry-fields.ts'

const MANIFEST = 'manifest.json'
const METADATA = 'metadata.json'
const SCORES = 'scores.json'
/** An index row lists a few problems; validate-bundle lists them all. */
const MAX_PROBLEMS = 20
const MAX_PROBLEM_CHARS = 500

type ManifestEntry = Manifest['files'][number]

/**
 * scores.json as the index reads it: its summary checked with the bundle's schema, its trials only counted. The
 * trials' records are checked by validate-bundle and by the report route, which reads the whole bundle.
 */
const ScoresHead = z.object({
  schemaVersion: z.number().int().min(1),
  trials: z.array(z.looseObject({ passed: z.boolean().optional() })),
  summary: z.unknown(),
})

/**
 * A runs-list row of the bundle folder `folder` of `runsDir`, from its small files alone (manifest.json,
 * metadata.json, scores.json; traces.jsonl is never opened): each checked against its schema, metadata.json and
 * scores.json against the manifest's checksums, and the files the manifest lists at the top of the folder present
 * with their sizes (a stat, not a read). Whatever the folder holds, the answer is a row: an invalid one lists the
 * problems, one line each as validate-bundle prints them.
 */
export async function readRunEntry(runsDir: string, folder: string): Promise<IndexedRun> {
  const problems: string[] = []
  const add = (file: string, message: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(oneLine(`${file}: ${message}`))
  }
  if (folder === '' || folder.startsWith('.') || !isSafeRelativePath(folder) || folder.includes('/')) {
    return invalidRunOf(folder, [`${JSON.stringify(folder)}: is not a folder name of the runs folder`])
  }
  const dir = join(runsDir, folder)
  const info = await lstat(dir).catch(() => undefined)
  if (!info?.isDirectory())
    return invalidRunOf(folder, ['.: is not a bundle folder (missing, or not a directory)'])

  const manifest = await readJson(dir, MANIFEST, Manifest, add)
  // A newer format is the one problem worth saying: nothing else of it can be judged.
  if (problems.some((p) => p.includes('newer than this agentevalops'))) return invalidRunOf(folder, problems)
  const metadata = await readJson(dir, METADATA, RunMetadata, add, manifest)
  const scores = await readJson(dir, SCORES, ScoresHead, add, manifest)
  if (manifest) await checkListedFiles(dir, manifest, add)

  let summary: RunSummary | null = null
  // Format 1 kept counts only, in a summary of no fixed shape: its rows show the trials' counts, no figures.
  if (scores && scores.schemaVersion >= 2) {
    const parsed = parseSmallSummary(scores.summary)
    if (parsed.ok) summary = parsed.value
    else add(SCORES, `summary: ${parsed.problem}`)
  }
  if (metadata && manifest && manifest.runId !== metadata.runId) {
    add(
      MANIFEST,
      `names run ${JSON.stringify(manifest.runId)} but metadata.json names ${JSON.stringify(metadata.runId)}`,
    )
  }
  if (problems.length > 0 || !metadata || !scores) {
    if (problems.length === 0) add('.', 'is not a readable bundle')
    return invalidRunOf(folder, problems, metadata)
  }
  const passed = scores.trials.filter((t) => t.passed === true).length
  return indexedRunOf(folder, metadata, { trials: scores.trials.length, passed, summary })
}

type Add = (file: string, message: string) => void

/**
 * A small file parsed with its schema; undefined with a problem added when it is missing, unreadable, not what
 * the manifest vouches for, or not of its schema; 'newer' when it declares a format this agentevalops cannot read.
 */
async function readJson<T>(
  dir: string,
  name: string,
  schema: z.ZodType<T>,
  add: Add,
  manifest?: Manifest,
): Promise<T | undefined> {
  const file = await readSmallFile(dir, name)
  if (!file.ok) {
    add(name, file.problem.includes('ENOENT') ? 'is missing' : file.problem)
    return undefined
  }
  if (manifest) {
    const entry = manifest.files.find((f) => f.path === name)
    if (!entry) add(name, 'is not listed in manifest.json')
    else if (entry.size !== file.bytes.length)
      add(
        name,
        `size is ${file.bytes.length} bytes but manifest.json says ${entry.size} (changed after the bundle was sealed)`,
      )
    else if (entry.sha256 !== sha256(file.bytes))
      add(name, 'sha256 does not match manifest.json (changed after the bundle was sealed)')
  }
  const version = declaredVersion(file.bytes, name === MANIFEST ? 'formatVersion' : 'schemaVersion')
  if (version !== undefined && version > BUNDLE_FORMAT_VERSION) {
    add(name, newerVersionMessage(name === MANIFEST ? 'formatVersion' : 'schemaVersion', version))
    return undefined
  }
  const parsed: Parsed<T> = parseSmallJson(file.bytes, schema)
  if (!parsed.ok) {
    add(name, parsed.problem)
    return undefined
  }
  return parsed.value
}

function parseSmallSummary(value: unknown): Parsed<RunSummary> {
  return parseSmallValue(value, RunSummary)
}

function declaredVersion(bytes: Buffer, field: string): number | undefined {
  const match = new RegExp(`"${field}"\\s*:\\s*(\\d{1,6})\\b`).exec(bytes.subarray(0, 4096).toString('utf8'))
  return match ? Number(match[1]) : undefined
}

/**
 * The manifest's entries at the top of the folder, and the files every bundle of its format has: each present as a
 * regular file (never through a symlink) of the listed size. A stat each; their checksums are validate-bundle's.
 */
async function checkListedFiles(dir: string, manifest: Manifest, add: Add): Promise<void> {
  const entries = new Map<string, ManifestEntry>()
  for (const entry of manifest.files) {
    if (!isSafeRelativePath(entry.path)) {
      add(
        MANIFEST,
        `lists ${JSON.stringify(entry.path.slice(0, 200))}, which is not a path inside the bundle`,
      )
      continue
    }
    if (!entry.path.includes('/')) entries.set(entry.path, entry)
  }
  for (const name of requiredFiles(manifest.formatVersion)) {
    if (name !== MANIFEST && !entries.has(name)) add(name, 'is required but not listed in manifest.json')
  }
  for (const [name, entry] of entries) {
    if (name === METADATA || name === SCORES) continue
    const info = await lstat(join(dir, name)).catch(() => undefined)
    if (!info) add(name, 'is listed in manifest.json but missing')
    else if (info.isSymbolicLink()) add(name, 'is a symbolic link (refused, never followed)')
    else if (!info.isFile()) add(name, 'is not a regular file')
    else if (info.size !== entry.size)
      add(
        name,
        `size is ${info.size} bytes but manifest.json says ${entry.size} (changed after the bundle was sealed)`,
      )
  }
}

/** A problem as one short line: a parser's message may quote the file across lines, or at length. */
function oneLine(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
  return flat.length <= MAX_PROBLEM_CHARS ? flat : `${flat.slice(0, MAX_PROBLEM_CHARS)}…`
}
