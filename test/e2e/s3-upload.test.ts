// Shards that upload their bundles to object storage and a merge that reads them back from the prefix, as real
// child processes (the CLI built from source, Vitest itself) against an S3-compatible server (s3rver) on 127.0.0.1.
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.ts'
import type { CliIO } from '../../src/cli/io.ts'
import { S3_BUCKET, startFakeS3, type FakeS3 } from '../support/s3-server.ts'
import {
  bundleDirs,
  readMetadata,
  readScores,
  runCli,
  runVitest,
  tail,
  useBuiltCli,
  validateWithCli,
  type VitestResult,
} from './helpers.ts'

const { cli, newTemp } = useBuiltCli()
let s3: FakeS3

beforeAll(async () => {
  s3 = await startFakeS3()
})
afterAll(async () => {
  await s3?.close()
})

/** A secret that must never land in a file: s3rver checks the key id, so any secret is accepted. */
const SECRET = 'aeo-test-secret-9f3c1d27b6e84a05'

async function shard(index: number, count: number, url: string, env: Record<string, string> = {}) {
  const runsDir = await newTemp(`aeo-s3-shard-${index}-`)
  const result = await runCli(
    cli(),
    ['run', 'configs/toy_smoke.yaml', `--shard=${index}/${count}`, '--upload', url],
    { runsDir, env: { ...s3.env({ secretAccessKey: SECRET }), ...env }, timeoutMs: 90_000 },
  )
  return { runsDir, result }
}

function expectExit(result: VitestResult, code: number): void {
  expect(result.code, tail(result.output)).toBe(code)
}

async function everyFile(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
}

async function filesHolding(dirs: readonly string[], text: string): Promise<string[]> {
  const found: string[] = []
  for (const dir of dirs)
    for (const file of await everyFile(dir)) if ((await readFile(file)).includes(text)) found.push(file)
  return found
}

/** The fake server's endpoint and key, for a client of the test's own. */
function sdkConfig() {
  const env = s3.env()
  return {
    endpoint: env.AWS_ENDPOINT_URL_S3,
    region: env.AWS_REGION,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  }
}

async function cliInProcess(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const io: CliIO = { out: (l) => void out.push(l), err: (l) => void err.push(l) }
  const saved = { ...process.env }
  Object.assign(process.env, s3.env())
  try {
    const code = await main(argv, io)
    return { code, stdout: out.join('\n'), stderr: err.join('\n') }
  } finally {
    for (const name of Object.keys(s3.env())) {
      if (saved[name] === undefined) delete process.env[name]
      else process.env[name] = saved[name]
    }
  }
}

describe('run --upload and merge s3://', () => {
  it('3 shards upload to one prefix; merge s3://bucket/prefix/ writes one complete, valid bundle of all trials', async () => {
    const url = `s3://${S3_BUCKET}/e2e/three-shards`
    const shards = await Promise.all([1, 2, 3].map((i) => shard(i, 3, url)))
    const runIds: string[] = []
    let trials = 0
    for (const { runsDir, result } of shards) {
      expectExit(result, 0)
      const [dir] = await bundleDirs(runsDir)
      const metadata = await readMetadata(dir!)
      runIds.push(metadata.runId)
      trials += (await readScores(dir!)).trials.length
      expect(result.output).toContain(`uploaded`)
      expect(result.output).toContain(`${url}/${metadata.runId}/`)
    }
    expect(trials).toBeGreaterThan(3)
    // A shard that uploads twice (a retried step) is still one bundle; one that died mid-upload left no manifest.
    const again = await cliInProcess('upload', (await bundleDirs(shards[0]!.runsDir))[0]!, url)
    expect(again.code, again.stderr).toBe(0)
    const dead = '0190f5a0-dead-7000-8000-000000000000'
    await new S3Client({ forcePathStyle: true, ...sdkConfig() }).send(
      new PutObjectCommand({ Bucket: S3_BUCKET, Key: `e2e/three-shards/${dead}/traces.jsonl`, Body: '{}\n' }),
    )

    const out = await newTemp('aeo-s3-merged-')
    const merged = await cliInProcess('merge', `${url}/`, '--output', out)
    expect(merged.code, merged.stderr).toBe(0)
    expect(merged.stderr).toContain(`skipped ${url}/${dead}/: it has no manifest.json`)
    const [dir] = await bundleDirs(out)
    const metadata = await readMetadata(dir!)
    expect(metadata.status).toBe('complete')
    expect(metadata.mergedFrom).toEqual(runIds)
    expect((await readScores(dir!)).trials).toHaveLength(trials)
    const validated = await validateWithCli(dir!)
    expect(validated.code, validated.stdout).toBe(0)

    // The secret the shards' SDK signed with is in no file any of them (or the server) wrote.
    const written = [...shards.map((s) => s.runsDir), out, s3.directory]
    expect(await filesHolding(written, SECRET)).toEqual([])
    expect((await everyFile(s3.directory)).length).toBeGreaterThan(0)
  }, 240_000)

  it('vitest mode uploads to AGENTEVALOPS_UPLOAD; a failed upload keeps the bundle, says how to retry, fails the run', async () => {
    const url = `s3://${S3_BUCKET}/e2e/vitest-mode`
    const runsDir = await newTemp('aeo-s3-vitest-')
    const failed = await runVitest(['run', '--project', 'evals'], {
      runsDir,
      env: {
        AGENTEVALOPS_CONFIG: 'configs/toy_smoke.yaml',
        AGENTEVALOPS_UPLOAD: url,
        ...s3.env({ accessKeyId: 'AKIAWRONGKEY', secretAccessKey: SECRET }),
      },
      timeoutMs: 90_000,
    })
    expectExit(failed, 1)
    const [dir] = await bundleDirs(runsDir)
    expect(await validateWithCli(dir!)).toMatchObject({ code: 0 })
    const shown = relative(join(import.meta.dirname, '../..'), dir!)
    expect(failed.output).toContain(`could not upload bundle ${shown} to ${url}`)
    expect(failed.output).toContain('InvalidAccessKeyId')
    expect(failed.output).toContain(`upload it again with: npx agentevalops upload ${shown} ${url}`)
    expect(failed.output).not.toContain(SECRET)
    expect(await filesHolding([runsDir], SECRET)).toEqual([])

    // The retry it names, with the right key.
    const retried = await cliInProcess('upload', dir!, url)
    expect(retried.code, retried.stderr).toBe(0)
    const { runId } = await readMetadata(dir!)
    expect(retried.stdout).toContain(`${url}/${runId}/`)
    const out = await newTemp('aeo-s3-down-')
    const merged = await cliInProcess('merge', url, '--output', out)
    expect(merged.code, merged.stderr).toBe(0)
  }, 240_000)

  it('refuses an --upload that is no s3:// URL before anything runs (exit 2)', async () => {
    const result = await cliInProcess('run', 'configs/toy_smoke.yaml', '--upload', 'gs://bucket/x')
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('expected s3://<bucket>/<prefix>')
  })
})
