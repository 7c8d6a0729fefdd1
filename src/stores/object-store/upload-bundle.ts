import { createReadStream } from 'node:fs'
import { lstat, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AgentEvalOpsError, errorMessage } from '../../core/index.ts'
import { MANIFEST_FILE, TRANSFER_CONCURRENCY, forEachLimited, parseManifest } from './bundle-objects.ts'
import { loadS3Sdk, objectStoreFailure, objectText, s3Client } from './s3-client.ts'
import { formatS3Url, keyOf, parseS3Url } from './s3-url.ts'

/**
 * Uploads the sealed bundle in `dir` to `<prefix>/<runId>/` of `url` (s3://bucket/prefix): every file its manifest
 * lists, then manifest.json last, so that a reader who finds the manifest finds every file it vouches for. The same
 * bundle uploaded again puts the same keys with the same content; a different bundle already there under the same
 * run id is refused rather than mixed with this one.
 */
export async function uploadBundle(dir: string, url: string): Promise<{ keys: number; url: string }> {
  const { bucket, prefix } = parseS3Url(url)
  const manifestPath = join(dir, MANIFEST_FILE)
  let manifestText: string
  try {
    manifestText = await readFile(manifestPath, 'utf8')
  } catch (e) {
    throw new AgentEvalOpsError('BUNDLE_NOT_FOUND', `${dir} is no sealed bundle: ${errorMessage(e)}.`, {
      hint: 'Upload a bundle folder (runs/<runId>) that has its manifest.json.',
    })
  }
  const manifest = parseManifest(manifestText, manifestPath)
  const base = keyOf(prefix, manifest.runId)
  const target = formatS3Url(bucket, `${base}/`)

  // A body shorter than the length announced would leave its request waiting: a changed bundle stops here.
  for (const entry of manifest.files) {
    const path = join(dir, entry.path)
    const size = await lstat(path).then(
      (s) => (s.isFile() ? s.size : -1),
      () => -1,
    )
    if (size !== entry.size)
      throw new AgentEvalOpsError(
        'BUNDLE_INVALID',
        `${path} is not the file manifest.json lists (${entry.size} bytes); nothing was uploaded.`,
        { hint: `Check the bundle with: npx agentevalops validate-bundle ${dir}` },
      )
  }

  const sdk = await loadS3Sdk()
  const client = s3Client(sdk)
  try {
    const remote = await objectText(
      sdk,
      client,
      { bucket, key: `${base}/${MANIFEST_FILE}` },
      { what: 'read', shown: target },
    )
    if (remote !== undefined && remote !== manifestText)
      throw new AgentEvalOpsError(
        'BUNDLE_EXISTS',
        `a different bundle of run ${manifest.runId} is already at ${target}; nothing was uploaded.`,
        { hint: 'Give the run its own id, or delete the old bundle from the bucket first.' },
      )
    await forEachLimited(manifest.files, TRANSFER_CONCURRENCY, async (entry) => {
      const key = `${base}/${entry.path}`
      const path = join(dir, entry.path)
      try {
        await client.send(
          new sdk.PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: createReadStream(path),
            ContentLength: entry.size,
            // The manifest's own digest: a server that checks it refuses a body that differs from the manifest.
            ChecksumSHA256: Buffer.from(entry.sha256, 'hex').toString('base64'),
          }),
        )
      } catch (e) {
        throw objectStoreFailure('upload', formatS3Url(bucket, key), e)
      }
    })
    const manifestKey = `${base}/${MANIFEST_FILE}`
    try {
      await client.send(
        new sdk.PutObjectCommand({
          Bucket: bucket,
          Key: manifestKey,
          Body: manifestText,
          ContentType: 'application/json',
        }),
      )
    } catch (e) {
      throw objectStoreFailure('upload', formatS3Url(bucket, manifestKey), e)
    }
    return { keys: manifest.files.length + 1, url: target }
  } finally {
    client.destroy()
  }
}
