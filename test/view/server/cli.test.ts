// `agentevalops view` as a user runs it: a real child process (the CLI built from source) that prints its URL,
// serves the runs list there, takes --port 0, and stops cleanly on SIGTERM and SIGINT; and its errors in process.
import { spawn } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunsResponse } from '../../../src/view/api.ts'
import { tempDir } from '../../bundles/fixtures.ts'
import { cleanEnv, runCli } from '../../cli/helpers.ts'
import { REPO_ROOT } from '../../e2e/helpers.ts'
import { addBundle, getJson } from './helpers.ts'

const RUN = '0190f5a0-0000-7000-8000-0000000000d1'
let work: Awaited<ReturnType<typeof tempDir>>
let runsDir: string
let buildDir: string
let cliEntry: string

beforeAll(async () => {
  work = await tempDir('aeo-view-cli-')
  runsDir = join(work.path, 'view-runs')
  await mkdir(runsDir)
  await addBundle(runsDir, work.path, RUN)
  const { build } = await import('esbuild')
  buildDir = join(
    REPO_ROOT,
    'node_modules',
    '.cache',
    'agentevalops-test',
    `view-cli-${process.pid}-${Date.now()}`,
  )
  await mkdir(buildDir, { recursive: true })
  await writeFile(join(buildDir, 'package.json'), '{ "type": "module" }\n')
  cliEntry = join(buildDir, 'cli.js')
  await build({
    entryPoints: [join(REPO_ROOT, 'src', 'cli', 'index.ts')],
    outfile: cliEntry,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    logLevel: 'silent',
  })
}, 120_000)
afterAll(async () => {
  await rm(buildDir, { recursive: true, force: true })
  await work?.remove()
})

/** Starts `agentevalops view …args`, resolves with the URL it prints, and how to stop it and wait for its exit. */
function startView(args: string[]) {
  const child = spawn(process.execPath, [cliEntry, 'view', ...args], {
    cwd: work.path,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no URL printed in 30 s; stdout: ${stdout}; stderr: ${stderr}`))
    }, 30_000)
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += String(chunk)
      const match = /http:\/\/127\.0\.0\.1:\d+\//.exec(stdout)
      if (match) {
        clearTimeout(timer)
        resolve(match[0])
      }
    })
    child.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)))
    void exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`view exited before printing a URL; stderr: ${stderr}`))
    })
  })
  const stop = async (signal: NodeJS.Signals) => {
    child.kill(signal)
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    const result = await exited
    clearTimeout(timer)
    return { ...result, stdout, stderr }
  }
  return { url, stop }
}

describe('agentevalops view (a child process)', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'prints its URL, serves the runs list there with --port 0, and exits 0 on %s',
    async (signal) => {
      const view = startView([runsDir, '--port', '0'])
      const url = await view.url
      const port = Number(new URL(url).port)
      expect(port).toBeGreaterThan(0)
      const body = await getJson<RunsResponse>(port, '/api/runs')
      expect(body.runs.map((r) => r.run)).toEqual([RUN])
      const { code, stdout, stderr } = await view.stop(signal)
      expect(code, stderr).toBe(0)
      expect(stdout).toContain(`serving ${runsDir}`)
      expect(stderr).toContain(`${signal}, stopping`)
    },
    60_000,
  )
})

describe('agentevalops view errors', () => {
  it('a missing runs folder: says which, and how to make one', async () => {
    const missing = join(work.path, 'no-such-folder')
    const result = await runCli('view', missing, '--port', '0')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`no runs folder at ${missing}`)
    expect(result.stderr).toContain('npx vitest run --project evals')
  })

  it('the default runs folder missing: names runs/ and AGENTEVALOPS_RUNS_DIR', async () => {
    const cwd = process.cwd()
    const saved = process.env.AGENTEVALOPS_RUNS_DIR
    delete process.env.AGENTEVALOPS_RUNS_DIR
    process.chdir(work.path)
    try {
      const result = await runCli('view', '--port', '0')
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`no runs folder at ${join(work.path, 'runs')}`)
      expect(result.stderr).toContain('AGENTEVALOPS_RUNS_DIR')
    } finally {
      process.chdir(cwd)
      if (saved !== undefined) process.env.AGENTEVALOPS_RUNS_DIR = saved
    }
  })

  it('a port in use: says so and suggests --port 0', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = taken.address() as AddressInfo
      const result = await runCli('view', runsDir, '--port', String(port))
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`)
      expect(result.stderr).toContain('--port 0')
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()))
    }
  })

  it.each([
    ['--port', 'abc'],
    ['--port', '70000'],
    ['--port', '-1'],
  ])('a bad %s %s is a usage error', async (...flag) => {
    const result = await runCli('view', runsDir, ...flag)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--port')
  })

  it('--help describes the command, its options and exit codes; it is in the command list', async () => {
    const help = await runCli('view', '--help')
    expect(help.code).toBe(0)
    for (const text of ['--port', '--host', '127.0.0.1', 'Exit codes', 'report.html'])
      expect(help.stdout).toContain(text)
    expect((await runCli('--help')).stdout).toMatch(/^\s+view\b/m)
  })
})
