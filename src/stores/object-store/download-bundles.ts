import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { S3Client } from '@aws-sdk/client-s3'
import { AgentEvalOpsError, type Manifest } from '../../core/index.ts'
import {
  MANIFEST_FILE,
  TRANSFER_CONCURRENCY,
  forEachLimited,
  isSafeRunId,
  parseManifest,
} from './bundle-objects.ts'
import { isNotFound, loadS3Sdk, objectStoreFailure, objectText, s3Client, type S3Sdk } from './s3-client.ts'
import { formatS3Url, keyOf, parseS3Url } from './s3-url.ts'

export interface DownloadOptions {
  /** Where a skipped folder is said (default: stderr). */
  warn?: (line: string) => void
}

/** Listing pages read at most (1000 run folders each): a bound, not a limit anyone reaches. */
const MAX_LIST_PAGES = 1000

/**
 * Downloads every bundle under `url` (s3://bucket/prefix/, one folder per run id) into `into/<runId>/` and returns
 * those folders, sorted. A folder without manifest.json is an upload in progress or one that died: it is skipped
 * with a warning, never taken for a whole bundle. A bundle whose files do not match its manifest (size, SHA-256)
 * or lack one it lists is an error naming it. Finding no bundle at all is an error too.
 */
export async function downloadBundles(
  url: string,
  into: string,
  options: DownloadOptions = {},
): Promise<string[]> {
  const warn = options.warn ?? ((line: string) => void process.stderr.write(`${line}\n`))
  const { bucket, prefix } = parseS3Url(url)
  const shownPrefix = formatS3Url(bucket, prefix === '' ? '' : `${prefix}/`)
  const sdk = await loadS3Sdk()
  const client = s3Client(sdk)
  try {
    const runIds = await listRunFolders(sdk, client, bucket, prefix, shownPrefix)
    const dirs: string[] = []
    for (const runId of runIds) {
      const base = keyOf(prefix, runId)
      const shown = formatS3Url(bucket, `${base}/`)
      // As in a runs folder, dot folders (`.staging`, synced along with the bundles) hold no bundle.
      if (runId.startsWith('.')) continue
      if (!isSafeRunId(runId)) {
        warn(`agentevalops: skipped ${shown}: ${JSON.stringify(runId)} cannot name a bundle folder.`)
        continue
      }
      const manifestKey = `${base}/${MANIFEST_FILE}`
      const manifestText = await objectText(
        sdk,
        client,
        { bucket, key: manifestKey },
        { what: 'download', shown: formatS3Url(bucket, manifestKey) },
      )
      if (manifestText === undefined) {
        warn(
          `agentevalops: skipped ${shown}: it has no ${MANIFEST_FILE} (an upload still in progress, or one that died); ` +
            'upload that shard again to include it.',
        )
        continue
      }
      const manifest = parseManifest(manifestText, formatS3Url(bucket, `${base}/${MANIFEST_FILE}`))
      if (manifest.runId !== runId)
        throw new AgentEvalOpsError(
          'BUNDLE_INVALID',
          `bundle ${shown} holds the manifest of run ${manifest.runId}; it was not downloaded.`,
          { hint: 'Upload bundles with `agentevalops upload`, which keys each by its own run id.' },
        )
      const dir = join(into, runId)
      await mkdir(into, { recursive: true })
      await mkdir(dir).catch((e: unknown) => {
        throw new AgentEvalOpsError('BUNDLE_EXISTS', `cannot download ${shown} into ${dir}: ${String(e)}.`, {
          hint: 'Download into an empty folder.',
        })
      })
      await downloadFiles(sdk, client, bucket, base, manifest, dir, shown)
      await writeFile(join(dir, MANIFEST_FILE), manifestText)
      dirs.push(dir)
    }
    if (dirs.length === 0)
      throw new AgentEvalOpsError(
        'BUNDLE_NOT_FOUND',
        `no whole bundle (one with ${MANIFEST_FILE}) under ${shownPrefix}.`,
        {
          hint: 'Check the prefix: shards upload to <prefix>/<runId>/ with --upload or AGENTEVALOPS_UPLOAD.',
        },
      )
    return dirs.sort()
  } finally {
    client.destroy()
  }
}

/** The run folders directly under the prefix, from the listing's common prefixes. */
async function listRunFolders(
  sdk: S3Sdk,
  client: S3Client,
  bucket: string,
  prefix: string,
  shown: string,
): Promise<string[]> {
  const listed = prefix === '' ? '' : `${prefix}/`
  const runIds = new Set<string>()
  let token: string | undefined
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    let out
    try {
      out = await client.send(
        new sdk.ListObjectsV2Command({
          Bucket: bucket,
          Prefix: listed,
          Delimiter: '/',
          ContinuationToken: token,
        }),
      )
    } catch (e) {
      throw objectStoreFailure('list', shown, e)
    }
    for (const common of out.CommonPrefixes ?? []) {
      const folder = common.Prefix?.slice(listed.length).replace(/\/$/, '')
      if (folder) runIds.add(folder)
    }
    token = out.IsTruncated ? out.NextContinuationToken : undefined
    if (token === undefined) return [...runIds].sort()
  }
  throw new AgentEvalOpsError(
    'OBJECT_STORE_FAILED',
    `${shown} lists more than ${MAX_LIST_PAGES * 1000} run folders.`,
    {
      hint: 'Give each run group its own prefix.',
    },
  )
}

/** Every file the manifest lists, each checked against its size and SHA-256 as it streams to disk. */
async function downloadFiles(
  sdk: S3Sdk,
  client: S3Client,
  bucket: string,
  base: string,
  manifest: Manifest,
  dir: string,
  shown: string,
): Promise<void> {
  await forEachLimited(manifest.files, TRANSFER_CONCURRENCY, async (entry) => {
    const key = `${base}/${entry.path}`
    let body: Readable
    try {
      const got = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }))
      body = got.Body as Readable
    } catch (e) {
      if (isNotFound(e))
        throw mismatch(shown, `${entry.path} is listed in its manifest but missing from the bucket`)
      throw objectStoreFailure('download', formatS3Url(bucket, key), e)
    }
    const path = join(dir, entry.path)
    await mkdir(dirname(path), { recursive: true })
    const hash = createHash('sha256')
    let size = 0
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk)
        size += chunk.length
        done(null, chunk)
      },
    })
    try {
      await pipeline(body, measure, createWriteStream(path, { flags: 'wx' }))
    } catch (e) {
      throw objectStoreFailure('download', formatS3Url(bucket, key), e)
    }
    const sha256 = hash.digest('hex')
    if (size !== entry.size || sha256 !== entry.sha256)
      throw mismatch(
        shown,
        `${entry.path} does not match its manifest (${size} bytes, sha256 ${sha256.slice(0, 12)}…; ` +
          `the manifest says ${entry.size} bytes, sha256 ${entry.sha256.slice(0, 12)}…)`,
      )
  })
}

function mismatch(shown: string, what: string): AgentEvalOpsError {
  return new AgentEvalOpsError('BUNDLE_INVALID', `bundle ${shown} is damaged: ${what}.`, {
    hint: 'Upload that shard again (agentevalops upload <bundle> <s3 url>), or delete it from the bucket.',
  })
}
