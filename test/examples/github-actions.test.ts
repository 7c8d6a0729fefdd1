// examples/github-actions/evals.yml: every command, project, reporter, path and variable it names exists in this
// repository, and its two shell snippets (pick the baseline, keep this run as the next one) do what they say.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile, readdir, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ReportersMap } from 'vitest/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { CONFIG_ENV } from '../../plugin/vite-plugin.ts'
import { RECORD_ENV, RECORD_MODES } from '../../src/recording/index.ts'
import { REPO_ROOT, tempDir, type TempDir } from '../e2e/helpers.ts'

interface Step {
  name?: string
  uses?: string
  run?: string
  if?: string
  with?: Record<string, string | number | boolean>
  'continue-on-error'?: unknown
}

interface Workflow {
  on: Record<string, unknown>
  jobs: Record<
    string,
    { env?: Record<string, string>; defaults?: { run?: { shell?: string } }; steps: Step[] }
  >
}

const WORKFLOW_FILE = join(REPO_ROOT, 'examples', 'github-actions', 'evals.yml')

let text: string
let job: Workflow['jobs'][string]
let steps: Step[]
let pkg: {
  scripts: Record<string, string>
  bin: Record<string, string>
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}

beforeAll(async () => {
  text = await readFile(WORKFLOW_FILE, 'utf8')
  const workflow = parse(text) as Workflow
  job = workflow.jobs.evals!
  steps = job.steps
  pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as typeof pkg
})

const step = (pattern: RegExp): Step => {
  const found = steps.find((s) => pattern.test(s.name ?? s.uses ?? ''))
  if (!found) throw new Error(`no step matching ${pattern}`)
  return found
}

/** The eval run's command line, folded (`>-`) into one line by the YAML parser. */
function evalCommand(): string[] {
  return step(/^Run the evals$/)
    .run!.trim()
    .split(/\s+/)
}

describe('examples/github-actions/evals.yml', () => {
  it('checks out, sets up Node 20 with the npm cache, and installs with npm ci', () => {
    expect(steps[0]?.uses).toMatch(/^actions\/checkout@v\d+$/)
    const node = step(/^actions\/setup-node@/)
    expect(node.with).toMatchObject({ 'node-version': 20, cache: 'npm' })
    expect(steps.some((s) => s.run?.trim() === 'npm ci')).toBe(true)
    // package-lock.json is what the npm cache and npm ci need.
    expect(existsSync(join(REPO_ROOT, 'package-lock.json'))).toBe(true)
  })

  it('runs only commands this package provides: its scripts, its dependencies and its own bin', () => {
    const known = new Set([
      ...Object.keys(pkg.dependencies),
      ...Object.keys(pkg.devDependencies),
      ...Object.keys(pkg.bin),
    ])
    const runs = steps.flatMap((s) => (s.run ? [s.run] : []))
    const npx = runs.flatMap((r) => [...r.matchAll(/\bnpx\s+([\w@/.-]+)/g)].map((m) => m[1]!))
    const scripts = runs.flatMap((r) => [...r.matchAll(/\bnpm run\s+([\w:-]+)/g)].map((m) => m[1]!))
    expect(npx).toContain('vitest')
    for (const bin of npx) expect(known, `npx ${bin}`).toContain(bin)
    for (const script of scripts) expect(Object.keys(pkg.scripts), `npm run ${script}`).toContain(script)
  })

  it('runs the evals project of vitest.config.ts, with junit and, as any reporter is named, github-actions', async () => {
    const command = evalCommand()
    expect(command.slice(0, 5)).toEqual(['npx', 'vitest', 'run', '--project', 'evals'])
    const config = (await import('../../vitest.config.ts')).default as {
      test: { projects: { test?: { name?: string } }[] }
    }
    expect(config.test.projects.map((p) => p.test?.name)).toContain('evals')
    const reporters = command
      .filter((a) => a.startsWith('--reporter='))
      .map((a) => a.slice('--reporter='.length))
    expect(reporters).toEqual(['default', 'github-actions', 'junit'])
    for (const name of reporters) expect(Object.keys(ReportersMap), name).toContain(name)
    // Nothing may swallow the run's exit code: a NO_GO (or a failed trial) must fail the job.
    const run = step(/^Run the evals$/)
    expect(run['continue-on-error']).toBeUndefined()
    expect(run.run).not.toMatch(/\|\||;\s*true|\bexit 0\b/)
  })

  it('uploads the bundles folder (the plugin default) and the JUnit file the run writes, whatever the outcome', async () => {
    const junit = evalCommand()
      .find((a) => a.startsWith('--outputFile.junit='))
      ?.split('=')[1]
    expect(junit).toBe('reports/evals-junit.xml')
    const upload = step(/^actions\/upload-artifact@|Upload/)
    expect(upload.uses).toMatch(/^actions\/upload-artifact@v\d+$/)
    expect(upload.if).toBe('${{ !cancelled() }}')
    const paths = String(upload.with?.path).trim().split('\n')
    expect(paths).toEqual(['runs/', '!runs/.staging/', junit])
    const plugin = await readFile(join(REPO_ROOT, 'plugin', 'vite-plugin.ts'), 'utf8')
    expect(plugin).toMatch(/options\.runsDir \|\| 'runs'/)
  })

  it('caches the recordings folders where recordings live, beside the eval files and the configs', async () => {
    const restore = step(/^Restore recordings$/)
    expect(restore.uses).toMatch(/^actions\/cache\/restore@v\d+$/)
    const paths = String(restore.with?.path).trim().split('\n')
    expect(paths).toEqual(['evals/__recordings__', 'configs/__recordings__'])
    // This repository's eval recordings are there (docs/recordings.md names both places).
    expect((await readdir(join(REPO_ROOT, 'evals', '__recordings__'))).length).toBeGreaterThan(0)
    const docs = await readFile(join(REPO_ROOT, 'docs', 'recordings.md'), 'utf8')
    expect(docs).toContain('configs/__recordings__/')
    expect(String(step(/^Save new recordings$/).with?.path)).toBe(String(restore.with?.path))
  })

  it('sets only variables agentevalops reads, to values it accepts', () => {
    const names = new Set([...text.matchAll(/\bAGENTEVALOPS_\w+/g)].map((m) => m[0]))
    expect([...names].sort()).toEqual([CONFIG_ENV.baseline, RECORD_ENV].sort())
    const modes = [...job.env![RECORD_ENV]!.matchAll(/'(\w+)'/g)].map((m) => m[1])
    expect(modes).toEqual(['record', 'auto'])
    for (const mode of modes) expect(RECORD_MODES).toContain(mode)
  })

  it('saves a baseline only from a passing push to main', () => {
    for (const name of [/^Make this run the baseline/, /^Save the baseline$/]) {
      expect(step(name).if).toBe(
        "${{ success() && github.event_name == 'push' && github.ref == 'refs/heads/main' }}",
      )
    }
    expect(step(/^Save the baseline$/).with?.path).toBe(step(/^Restore the baseline/).with?.path)
  })
})

describe("the workflow's shell snippets", () => {
  let dir: TempDir
  beforeAll(async () => {
    dir = await tempDir('aeo-workflow-')
  })
  afterAll(async () => {
    await dir?.remove()
  })

  /** As Actions runs a step under `shell: bash`: `bash --noprofile --norc -eo pipefail`. */
  async function sh(script: string, env: Record<string, string>): Promise<void> {
    expect(job.defaults?.run?.shell).toBe('bash')
    await promisify(execFile)('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: dir.path,
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 10_000,
    })
  }

  it('points AGENTEVALOPS_BASELINE at the restored bundle, and sets nothing without one', async () => {
    const script = step(/^Compare with the baseline/).run!
    const baselineDir = join(dir.path, 'baseline')
    const githubEnv = join(dir.path, 'github-env')
    await writeFile(githubEnv, '')
    await sh(script, { BASELINE_DIR: baselineDir, GITHUB_ENV: githubEnv })
    expect(await readFile(githubEnv, 'utf8')).toBe('')
    await mkdir(join(baselineDir, '01a2-run'), { recursive: true })
    await sh(script, { BASELINE_DIR: baselineDir, GITHUB_ENV: githubEnv })
    expect(await readFile(githubEnv, 'utf8')).toBe(`AGENTEVALOPS_BASELINE=${join(baselineDir, '01a2-run')}\n`)
  })

  it('keeps the newest bundle of runs/ as the next baseline, and nothing else', async () => {
    const script = step(/^Make this run the baseline/).run!
    const baselineDir = join(dir.path, '.agentevalops', 'baseline')
    await mkdir(join(baselineDir, 'stale-baseline'), { recursive: true })
    const runs = join(dir.path, 'runs')
    for (const [name, age] of [
      ['old-run', 60],
      ['new-run', 0],
      ['.staging', -60],
    ] as const) {
      await mkdir(join(runs, name), { recursive: true })
      await writeFile(join(runs, name, 'metadata.json'), `{"runId":"${name}"}`)
      const at = new Date(Date.now() - age * 1000)
      await utimes(join(runs, name), at, at)
    }
    await sh(script, { BASELINE_DIR: baselineDir })
    expect(await readdir(baselineDir)).toEqual(['new-run'])
    expect(await readFile(join(baselineDir, 'new-run', 'metadata.json'), 'utf8')).toBe('{"runId":"new-run"}')
  })
})
