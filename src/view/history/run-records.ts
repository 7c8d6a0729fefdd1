import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import type { ZodType } from 'zod'
import {
  AgentEvalOpsError,
  BUNDLE_FORMAT_VERSION,
  Manifest,
  RunMetadata,
  ScoresFile,
  ScoresFileV1,
  ScoresFileV2,
  sha256,
  type ScoredTrial,
} from '../../core/index.ts'
import { MANIFEST_FILE, METADATA_FILE, SCORES_FILE } from '../../bundles/index.ts'
import type { IndexedRun } from '../catalog/indexed-run.ts'

/** What a comparison needs of a run: its metadata (benchmarks with their dataset checksums) and its trials. */
export interface RunRecords {
  dir: string
  metadata: RunMetadata
  trials: ScoredTrial[]
}

/** Larger than any manifest a writer makes (one line per file); a bigger one is not read. */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024

/**
 * Reads a valid run's metadata.json and scores.json, each held to the digest the manifest recorded when it was
 * sealed: the index found the bundle valid, and a file changed since (or swapped for a symlink) is refused rather
 * than compared. traces.jsonl, most of a bundle's bytes, is not read: the comparison pairs trial records only.
 */
export async function readRunRecords(runsDir: string, run: IndexedRun): Promise<RunRecords> {
  const { entry } = run
  if (entry.state !== 'valid')
    throw new AgentEvalOpsError(
      'BUNDLE_INVALID',
      `run ${entry.run} is ${entry.state}: only sealed, valid runs are compared.`,
      {
        hint: 'Run agentevalops validate-bundle on it to see why, or pick another run.',
      },
    )
  if (!isPlainName(entry.run))
    throw new AgentEvalOpsError(
      'BUNDLE_NOT_FOUND',
      `run ${JSON.stringify(entry.run)} does not name a folder of ${runsDir}.`,
    )
  const dir = join(runsDir, entry.run)
  const manifest = parse(
    Manifest,
    json(
      await readFileOf(dir, MANIFEST_FILE, MAX_MANIFEST_BYTES, 'is larger than any manifest a writer makes'),
      dir,
      MANIFEST_FILE,
    ),
    dir,
    MANIFEST_FILE,
  )
  const sealed = async (file: string) => {
    const recorded = manifest.files.find((f) => f.path === file)
    if (!recorded) throw invalid(dir, `${file} is not in its manifest`)
    const changed = 'changed since the bundle was sealed (it is not what its manifest recorded)'
    const bytes = await readFileOf(dir, file, recorded.size, changed)
    if (bytes.length !== recorded.size || sha256(bytes) !== recorded.sha256)
      throw invalid(dir, `${file} ${changed}`)
    return bytes
  }
  const metadata = parse(
    RunMetadata,
    json(await sealed(METADATA_FILE), dir, METADATA_FILE),
    dir,
    METADATA_FILE,
  )
  if (metadata.runId !== manifest.runId)
    throw invalid(dir, `metadata.json's runId ${metadata.runId} is not the manifest's ${manifest.runId}`)
  return { dir, metadata, trials: scoredTrials(await sealed(SCORES_FILE), dir) }
}

/** The trials of scores.json of any format a reader accepts; format 1's trials carry a run id, dropped here. */
function scoredTrials(bytes: Buffer, dir: string): ScoredTrial[] {
  const value = json(bytes, dir, SCORES_FILE)
  const version = (value as { schemaVersion?: unknown } | null)?.schemaVersion
  if (typeof version === 'number' && version > BUNDLE_FORMAT_VERSION)
    throw invalid(
      dir,
      `${SCORES_FILE} is of format ${version}, newer than this agentevalops reads: upgrade it`,
    )
  if (version === 1)
    return parse(ScoresFileV1, value, dir, SCORES_FILE).trials.map(({ runId: _runId, ...trial }) => trial)
  if (version === 2) return parse(ScoresFileV2, value, dir, SCORES_FILE).trials
  return parse(ScoresFile, value, dir, SCORES_FILE).trials
}

/** The file's bytes, read without following a symlink and never more than `limit` of them (else `tooLarge`). */
async function readFileOf(dir: string, file: string, limit: number, tooLarge: string): Promise<Buffer> {
  let handle
  try {
    handle = await open(join(dir, file), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT')
      throw new AgentEvalOpsError('BUNDLE_NOT_FOUND', `${join(dir, file)} is gone (was the run pruned?).`, {
        hint: 'Reload the runs list.',
      })
    throw invalid(dir, `${file} could not be opened (${code ?? String(e)})`)
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) throw invalid(dir, `${file} is not a regular file`)
    if (info.size > limit) throw invalid(dir, `${file} ${tooLarge}`)
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(info.size), 0, info.size, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}

function parse<T>(schema: ZodType<T>, value: unknown, dir: string, file: string): T {
  const parsed = schema.safeParse(value)
  if (!parsed.success) throw invalid(dir, `${file} does not match its schema`)
  return parsed.data
}

function json(bytes: Buffer, dir: string, file: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown
  } catch {
    throw invalid(dir, `${file} is not JSON`)
  }
}

function invalid(dir: string, problem: string): AgentEvalOpsError {
  return new AgentEvalOpsError('BUNDLE_INVALID', `the bundle at ${dir} cannot be compared: ${problem}.`, {
    hint: `Run agentevalops validate-bundle ${dir} to see what is wrong.`,
  })
}

/** One folder name, no path: the index names runs by their folder, and nothing else may reach outside the runs folder. */
function isPlainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name)
}
