// Bundles to and from object storage through the real AWS SDK, against an S3-compatible server (s3rver) on 127.0.0.1.
import { spawn } from 'node:child_process'
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { build } from 'esbuild'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { validateBundle } from '../../src/bundles/index.ts'
import { isAgentEvalOpsError } from '../../src/core/index.ts'
import { downloadBundles, parseS3Url, uploadBundle } from '../../src/stores/object-store/index.ts'
import { buildBundle, tempDir } from '../bundles/fixtures.ts'
import { S3_BUCKET, startFakeS3, type FakeS3 } from '../support/s3-server.ts'

const RUN_IDS = [
  '0190f5a0-1c2d-7e3f-8a4b-000000000001',
  '0190f5a0-1c2d-7e3f-8a4b-000000000002',
  '0190f5a0-1c2d-7e3f-8a4b-000000000003',
]

let s3: FakeS3
let work: { path: string; remove: () => Promise<void> }
/** A prefix of each test's own, so tests never see each other's bundles. */
let prefix: string
let testNo = 0

beforeAll(async () => {
  s3 = await startFakeS3()
  work = await tempDir('aeo-object-store-')
})
afterAll(async () => {
  await s3?.close()
  await work?.remove()
})
beforeEach(() => {
  for (const [name, value] of Object.entries(s3.env())) vi.stubEnv(name, value)
  vi.stubEnv('AWS_PROFILE', undefined)
  vi.stubEnv('AWS_ENDPOINT_URL', undefined)
  prefix = `s3://${S3_BUCKET}/runs/test-${++testNo}`
})
afterEach(() => {
  vi.unstubAllEnvs()
})

async function bundles(count: number): Promise<string[]> {
  const dirs: string[] = []
  for (const runId of RUN_IDS.slice(0, count))
    dirs.push(await buildBundle(join(work.path, `t${testNo}-${runId}`), { runId }))
  return dirs
}

async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>()
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    out.set(relative(dir, path), await readFile(path))
  }
  return out
}

function client(): S3Client {
  return new S3Client({ forcePathStyle: true })
}

async function expectError(promise: Promise<unknown>, code: string): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isAgentEvalOpsError(error), String(error)).toBe(true)
  expect((error as { code: string }).code).toBe(code)
  return error as Error
}

describe('s3:// locations', () => {
  it('parses bucket and prefix, with or without a trailing slash', () => {
    expect(parseS3Url('s3://my-evals/nightly/2026/')).toEqual({ bucket: 'my-evals', prefix: 'nightly/2026' })
    expect(parseS3Url('s3://my-evals')).toEqual({ bucket: 'my-evals', prefix: '' })
  })

  it.each([
    'gs://my-evals/x',
    'my-evals/x',
    's3://',
    's3://Bad_Bucket/x',
    's3://my-evals/a/../b',
    's3://my-evals/a//b',
  ])('refuses %s with the form it expects', (url) => {
    expect(() => parseS3Url(url)).toThrow(/s3:\/\/<bucket>\/<prefix>|plain path segments/)
  })
})

describe('uploadBundle and downloadBundles', () => {
  it('round-trips 3 shard bundles through a prefix: every file byte for byte, each bundle valid', async () => {
    const dirs = await bundles(3)
    for (const dir of dirs) {
      const { keys } = await uploadBundle(dir, prefix)
      expect(keys).toBe((await filesOf(dir)).size)
    }
    const into = join(work.path, `down-${testNo}`)
    const got = await downloadBundles(prefix + '/', into)
    expect(got).toEqual(RUN_IDS.map((id) => join(into, id)))
    for (const [i, dir] of dirs.entries()) {
      expect(await filesOf(got[i]!)).toEqual(await filesOf(dir))
      expect(await validateBundle(got[i]!)).toEqual([])
    }
  })

  it('puts manifest.json after every other file of the bundle', async () => {
    const [dir] = await bundles(1)
    const from = s3.requests.length
    await uploadBundle(dir!, prefix)
    const puts = s3.requests.slice(from).filter((r) => r.method === 'PUT')
    expect(puts.length).toBe((await filesOf(dir!)).size)
    expect(puts.at(-1)!.path).toBe(`/${S3_BUCKET}/runs/test-${testNo}/${RUN_IDS[0]}/manifest.json`)
  })

  it('uploading the same bundle twice puts the same keys with the same content: one bundle', async () => {
    const [dir] = await bundles(1)
    const first = s3.requests.length
    await uploadBundle(dir!, prefix)
    const second = s3.requests.length
    await uploadBundle(dir!, prefix)
    const keys = (from: number, to?: number) =>
      s3.requests
        .slice(from, to)
        .filter((r) => r.method === 'PUT')
        .map((r) => r.path)
        .sort()
    expect(keys(second)).toEqual(keys(first, second))
    const into = join(work.path, `down-${testNo}`)
    const got = await downloadBundles(prefix, into)
    expect(got).toEqual([join(into, RUN_IDS[0]!)])
    expect(await filesOf(got[0]!)).toEqual(await filesOf(dir!))
  })

  it('refuses to mix a different bundle into one of the same run id already there', async () => {
    const [dir] = await bundles(1)
    await uploadBundle(dir!, prefix)
    const other = await buildBundle(join(work.path, `other-${testNo}`), { runId: RUN_IDS[0], trials: 1 })
    const error = await expectError(uploadBundle(other, prefix), 'BUNDLE_EXISTS')
    expect(error.message).toContain(RUN_IDS[0])
    const got = await downloadBundles(prefix, join(work.path, `down-${testNo}`))
    expect(await filesOf(got[0]!)).toEqual(await filesOf(dir!))
  })

  it('a shard killed mid-upload is skipped with a warning naming it, never taken for a whole bundle', async () => {
    const [whole, dying] = await bundles(2)
    await uploadBundle(whole!, prefix)
    // The dying shard's uploader is a child process; its fourth PUT onwards are never answered, then it is killed.
    const dyingPrefix = `/${S3_BUCKET}/runs/test-${testNo}/${RUN_IDS[1]}/`
    let answered = 0
    s3.holdWhen((r) => r.method === 'PUT' && r.path.startsWith(dyingPrefix) && ++answered > 3)
    const child = spawn(process.execPath, [uploader, dying!, prefix], {
      env: { ...process.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    const exited = new Promise<NodeJS.Signals | null>((res) =>
      child.once('close', (_c, signal) => res(signal)),
    )
    await vi.waitFor(() => expect(s3.held.length).toBeGreaterThan(0), { timeout: 30_000, interval: 20 })
    child.kill('SIGKILL')
    expect(await exited).toBe('SIGKILL')
    s3.holdWhen(() => false)
    const putsOfDying = s3.requests.filter((r) => r.method === 'PUT' && r.path.startsWith(dyingPrefix))
    expect(putsOfDying.length).toBeGreaterThan(3)
    expect(putsOfDying.some((r) => r.path.endsWith('/manifest.json'))).toBe(false)

    const warnings: string[] = []
    const into = join(work.path, `down-${testNo}`)
    const got = await downloadBundles(prefix, into, { warn: (line) => warnings.push(line) })
    expect(got).toEqual([join(into, RUN_IDS[0]!)])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(`${RUN_IDS[1]}/`)
    expect(warnings[0]).toContain('no manifest.json')
    expect(await readdir(into)).toEqual([RUN_IDS[0]])
  })

  it('a local bundle whose file changed after sealing is refused before anything is put', async () => {
    const [dir] = await bundles(1)
    await writeFile(join(dir!, 'report.md'), '# changed after the seal, and longer than before\n')
    const from = s3.requests.length
    const error = await expectError(uploadBundle(dir!, prefix), 'BUNDLE_INVALID')
    expect(error.message).toContain('report.md is not the file manifest.json lists')
    expect(s3.requests.slice(from)).toEqual([])
  })

  it('a bundle whose object differs from its manifest is an error naming the bundle and the file', async () => {
    const [dir] = await bundles(1)
    await uploadBundle(dir!, prefix)
    const { bucket, prefix: key } = parseS3Url(prefix)
    await client().send(
      new PutObjectCommand({ Bucket: bucket, Key: `${key}/${RUN_IDS[0]}/report.md`, Body: '# tampered\n' }),
    )
    const error = await expectError(
      downloadBundles(prefix, join(work.path, `down-${testNo}`)),
      'BUNDLE_INVALID',
    )
    expect(error.message).toContain(`${RUN_IDS[0]}/`)
    expect(error.message).toContain('report.md does not match its manifest')
  })

  it('a bundle missing an object its manifest lists is an error naming both', async () => {
    const [dir] = await bundles(1)
    await uploadBundle(dir!, prefix)
    const { bucket, prefix: key } = parseS3Url(prefix)
    await client().send(new DeleteObjectCommand({ Bucket: bucket, Key: `${key}/${RUN_IDS[0]}/traces.jsonl` }))
    const error = await expectError(
      downloadBundles(prefix, join(work.path, `down-${testNo}`)),
      'BUNDLE_INVALID',
    )
    expect(error.message).toContain(`${RUN_IDS[0]}/`)
    expect(error.message).toContain('traces.jsonl is listed in its manifest but missing from the bucket')
  })

  it('a manifest naming a path outside its bundle is refused and nothing is written outside', async () => {
    const { bucket, prefix: key } = parseS3Url(prefix)
    const runId = RUN_IDS[2]!
    const manifest = {
      formatVersion: 1,
      runId,
      createdAt: '2025-01-02T03:04:16.000Z',
      files: [{ path: '../../escaped.txt', sha256: 'a'.repeat(64), size: 1 }],
    }
    await client().send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `${key}/${runId}/manifest.json`,
        Body: JSON.stringify(manifest),
      }),
    )
    const into = join(work.path, `down-${testNo}`, 'inner')
    const error = await expectError(downloadBundles(prefix, into), 'BUNDLE_INVALID')
    expect(error.message).toContain('../../escaped.txt')
    expect((await readdir(work.path)).filter((n) => n.includes('escaped'))).toEqual([])
  })

  it('a prefix holding no whole bundle is an error that says so', async () => {
    const error = await expectError(
      downloadBundles(prefix, join(work.path, `down-${testNo}`)),
      'BUNDLE_NOT_FOUND',
    )
    expect(error.message).toContain(`${prefix}/`)
  })

  it('a wrong credential gives a clear error that names the location and never the secret', async () => {
    const [dir] = await bundles(1)
    const secret = 'never-print-this-secret-' + String(testNo)
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAWRONGKEY')
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', secret)
    const error = await expectError(uploadBundle(dir!, prefix), 'OBJECT_STORE_FAILED')
    expect(error.message).toContain('InvalidAccessKeyId')
    expect(error.message).toContain(`${prefix}/${RUN_IDS[0]}/`)
    expect(error.message).toMatch(/Check the credentials/)
    expect(error.message).not.toContain(secret)
    const down = await expectError(
      downloadBundles(prefix, join(work.path, `down-${testNo}`)),
      'OBJECT_STORE_FAILED',
    )
    expect(down.message).toContain('InvalidAccessKeyId')
  })

  it('reaches the server through the generic AWS_ENDPOINT_URL as well', async () => {
    const [dir] = await bundles(1)
    vi.stubEnv('AWS_ENDPOINT_URL', s3.env().AWS_ENDPOINT_URL_S3)
    vi.stubEnv('AWS_ENDPOINT_URL_S3', undefined)
    await uploadBundle(dir!, prefix)
    const got = await downloadBundles(prefix, join(work.path, `down-${testNo}`))
    expect(got).toHaveLength(1)
  })
})

let uploader: string
let uploaderDir: string
beforeAll(async () => {
  // The uploader as a separate program, so that it can die with the upload half done. It lives under
  // node_modules, where its bare imports (the AWS SDK) resolve.
  const repo = resolve(import.meta.dirname, '../..')
  uploaderDir = join(repo, 'node_modules', '.cache', 'agentevalops-test', `uploader-${process.pid}`)
  await mkdir(uploaderDir, { recursive: true })
  await writeFile(join(uploaderDir, 'package.json'), '{ "type": "module" }\n')
  const source = join(uploaderDir, 'uploader.ts')
  await writeFile(
    source,
    `import { uploadBundle } from ${JSON.stringify(join(repo, 'src/stores/object-store/index.ts'))}\n` +
      'await uploadBundle(process.argv[2], process.argv[3])\n',
  )
  uploader = join(uploaderDir, 'uploader.mjs')
  await build({
    entryPoints: [source],
    outfile: uploader,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  })
})
afterAll(async () => {
  if (uploaderDir) await rm(uploaderDir, { recursive: true, force: true })
})
