// The local CloudBackend against real child processes: exit codes, logs, a cancel that reaches the whole process
// group (no orphaned grandchild), idempotent cancel, secrets from the environment, spans handed to a folder.
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LocalBackend } from '../../src/cloud/index.ts'
import { isAgentEvalOpsError, type JobHandle } from '../../src/core/index.ts'
import { pollUntil, tempDir, type TempDir } from '../e2e/helpers.ts'
import { liveGroupMembers } from '../support/process-group.ts'

const JOB = fileURLToPath(new URL('../fixtures/cloud/job.mjs', import.meta.url))

let temp: TempDir
beforeAll(async () => {
  temp = await tempDir('aeo-local-backend-')
})
afterAll(async () => {
  await temp.remove()
})

/** The live processes of a job's group (its leader's pid is the group id, the tail of its job id). */
function liveMembers(handle: JobHandle): Promise<number[]> {
  return liveGroupMembers(Number(handle.jobId.split('@')[1]))
}

/** A backend whose jobs' lines are kept per job, to find a grandchild's pid. */
function backend(options: { cancelGraceMs?: number; env?: NodeJS.ProcessEnv } = {}) {
  const lines = new Map<string, string[]>()
  const local = new LocalBackend({
    ...options,
    onLine: (handle, line) => lines.set(handle.jobId, [...(lines.get(handle.jobId) ?? []), line]),
  })
  const grandchild = (handle: JobHandle): Promise<number> =>
    pollUntil(
      async () => {
        const line = lines.get(handle.jobId)?.find((l) => l.startsWith('grandchild '))
        return line === undefined ? undefined : Number(line.split(' ')[1])
      },
      { timeoutMs: 20_000, describe: () => `no grandchild line from ${handle.jobId}` },
    )
  return { local, lines, grandchild }
}

describe('LocalBackend', () => {
  it('runs a job to its exit code, with stdout and stderr in its log', async () => {
    const { local } = backend()
    const ok = await local.submit({
      name: 'ok',
      command: [process.execPath, JOB, 'exit', '0'],
      cwd: temp.path,
      env: { JOB_SECRET_NAME: 'API_KEY' },
      logFile: join(temp.path, 'logs', 'ok.log'),
    })
    const failing = await local.submit({
      name: 'failing',
      command: [process.execPath, JOB, 'exit', '3'],
      cwd: temp.path,
      env: {},
      logFile: join(temp.path, 'logs', 'failing.log'),
    })
    const [okStatus, failingStatus] = await Promise.all([local.wait(ok), local.wait(failing)])
    expect(okStatus).toMatchObject({ state: 'succeeded', exitCode: 0, signal: null })
    expect(okStatus.finishedAt).not.toBeNull()
    expect(await local.status(failing)).toMatchObject({ state: 'failed', exitCode: 3 })
    expect(failingStatus.logFile).toBe(join(temp.path, 'logs', 'failing.log'))
    const log = await readFile(ok.logFile, 'utf8')
    expect(log).toContain('hello from the job')
    expect(log).toContain('secret is API_KEY by name')
  })

  it('reports a job as running until it ends', async () => {
    const { local } = backend()
    const job = await local.submit({
      name: 'long',
      command: [process.execPath, JOB, 'tree'],
      cwd: temp.path,
      env: {},
      logFile: join(temp.path, 'long.log'),
    })
    expect(await local.status(job)).toMatchObject({ state: 'running', exitCode: null, finishedAt: null })
    await local.cancel(job)
    expect((await local.status(job)).state).toBe('cancelled')
  })

  it('cancel stops the whole process group: no grandchild outlives the job; a second cancel is a no-op', async () => {
    const { local, grandchild } = backend()
    const job = await local.submit({
      name: 'tree',
      command: [process.execPath, JOB, 'tree'],
      cwd: temp.path,
      env: {},
      logFile: join(temp.path, 'tree.log'),
    })
    const pid = await grandchild(job)
    expect(await liveMembers(job)).toContain(pid)
    await Promise.all([local.cancel(job), local.cancel(job)])
    const status = await local.status(job)
    expect(status).toMatchObject({ state: 'cancelled', exitCode: null, signal: 'SIGTERM' })
    expect(await liveMembers(job)).toEqual([])
    await local.cancel(job)
    expect(await local.status(job)).toEqual(status)
  })

  it('a job that ignores SIGTERM is killed with its group after the grace period', async () => {
    const { local, grandchild, lines } = backend({ cancelGraceMs: 300 })
    const job = await local.submit({
      name: 'stubborn',
      command: [process.execPath, JOB, 'stubborn'],
      cwd: temp.path,
      env: {},
      logFile: join(temp.path, 'stubborn.log'),
    })
    const pid = await grandchild(job)
    expect(await liveMembers(job)).toContain(pid)
    await local.cancel(job)
    expect(lines.get(job.jobId)).toContain('ignoring SIGTERM')
    expect(await local.status(job)).toMatchObject({ state: 'cancelled', signal: 'SIGKILL' })
    expect(await liveMembers(job)).toEqual([])
  })

  it('cancelling a job that already ended changes nothing', async () => {
    const { local } = backend()
    const job = await local.submit({
      name: 'ended',
      command: [process.execPath, JOB, 'exit', '0'],
      cwd: temp.path,
      env: {},
      logFile: join(temp.path, 'ended.log'),
    })
    await local.wait(job)
    await local.cancel(job)
    expect(await local.status(job)).toMatchObject({ state: 'succeeded', exitCode: 0 })
  })

  it('fetchSecret reads the variable of that name; a missing one is an error naming it', async () => {
    const { local } = backend({ env: { MY_TOKEN: 's3cr3t-value' } })
    expect(await local.fetchSecret({ name: 'MY_TOKEN' })).toBe('s3cr3t-value')
    const missing = await local.fetchSecret({ name: 'NOT_SET_TOKEN' }).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(missing, 'SECRET_MISSING')).toBe(true)
    expect((missing as Error).message).toContain('NOT_SET_TOKEN')
    const bad = await local.fetchSecret({ name: 'rm -rf' }).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(bad, 'SECRET_MISSING')).toBe(true)
  })

  it("exportTelemetry copies the spans of the job's sealed bundle to the destination", async () => {
    const { local } = backend()
    const outputDir = join(temp.path, 'shard-runs')
    await mkdir(join(outputDir, 'run-a'), { recursive: true })
    await mkdir(join(outputDir, 'unsealed'), { recursive: true })
    await writeFile(join(outputDir, 'run-a', 'spans.jsonl'), '{"name":"eval.run"}\n')
    await writeFile(join(outputDir, 'run-a', 'manifest.json'), '{}\n')
    await writeFile(join(outputDir, 'unsealed', 'spans.jsonl'), '{"name":"half"}\n')
    const job = await local.submit({
      name: 'shard-1-of-1',
      command: [process.execPath, JOB, 'exit', '0'],
      cwd: temp.path,
      env: {},
      logFile: join(temp.path, 'telemetry.log'),
      outputDir,
    })
    await local.wait(job)
    const destination = join(temp.path, 'telemetry')
    const written = await local.exportTelemetry(job, destination)
    expect(written).toEqual([join(destination, 'shard-1-of-1-run-a-spans.jsonl')])
    expect(await readFile(written[0]!, 'utf8')).toBe('{"name":"eval.run"}\n')
  })

  it('refuses a handle it did not hand out', async () => {
    const { local } = backend()
    const e = await local
      .status({ backendId: 'local', jobId: 'nope@1', name: 'nope', logFile: '/dev/null' })
      .catch((error: unknown) => error)
    expect(isAgentEvalOpsError(e, 'JOB_UNKNOWN')).toBe(true)
  })
})
