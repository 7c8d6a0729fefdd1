// `agentevalops run <config> --parallel N` as a real child process (the CLI built from source): N shard processes
// through the local backend, merged into one bundle equal to the --parallel 1 bundle in trials, outcomes, scores and
// summary statistics; a shard that fails without a bundle (named with its log, the others' bundles kept, a rerun
// line); SIGTERM cancelling every shard with no process of theirs left behind.
import { existsSync } from 'node:fs'
import { readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScoresFile } from '../../src/core/index.ts'
import {
  buildCli,
  bundleDirs,
  pollUntil,
  readMetadata,
  readScores,
  REPO_ROOT,
  runCli,
  startCli,
  tail,
  tempDir,
  validateWithCli,
  type BuiltCli,
  type TempDir,
} from './helpers.ts'

let cli: BuiltCli
const temps: TempDir[] = []

beforeAll(async () => {
  cli = await buildCli()
}, 120_000)
afterAll(async () => {
  await cli?.remove()
  for (const t of temps) await t.remove()
})

async function newTemp(prefix: string): Promise<string> {
  const dir = await tempDir(prefix)
  temps.push(dir)
  return dir.path
}

/** A small mock run: five toy tasks answered by the scripted agent, two trials each. */
const MOCK_CONFIG = [
  'name: parallel-mock',
  'benchmark:',
  '  id: toy',
  '  tasks: [arith-add, capital-france, iso-date, json-profile, calc-multiply]',
  'agent:',
  '  runner: mock-scripted',
  'evaluators: [matches-expected]',
  'trials: 2',
  'gate: { min_pass_rate: 0 }',
  '',
].join('\n')

/** Keys whose values are the run's timing or identity, not its results. */
const NOT_RESULTS = new Set([
  'wallSeconds',
  'latencyMs',
  'durationSec',
  'startedAt',
  'finishedAt',
  'ts',
  'runId',
  'spanId',
  'tracePath',
  'path',
])

function results(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(results)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !NOT_RESULTS.has(key))
      .map(([key, v]) => [key, results(v)]),
  )
}

function byTrial(scores: ScoresFile) {
  return [...scores.trials]
    .sort((a, b) => a.taskId.localeCompare(b.taskId) || a.trial - b.trial)
    .map((t) => results(t))
}

async function parallelRun(count: number, config: string) {
  const runsDir = await newTemp(`aeo-parallel-${count}-runs-`)
  const result = await runCli(cli, ['run', config, '--parallel', String(count), '--output', runsDir], {
    runsDir,
    timeoutMs: 120_000,
  })
  expect(result.code, tail(result.output)).toBe(0)
  const dirs = await bundleDirs(runsDir)
  expect(dirs, 'one merged bundle in the runs folder').toHaveLength(1)
  const validated = await validateWithCli(dirs[0]!)
  expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)
  return { runsDir, dir: dirs[0]!, result }
}

describe('agentevalops run --parallel', { timeout: 240_000 }, () => {
  it('merges 2 shard processes into the bundle --parallel 1 writes: same trials, outcomes, scores and statistics', async () => {
    const dir = await newTemp('aeo-parallel-config-')
    const config = join(dir, 'mock.yaml')
    await writeFile(config, MOCK_CONFIG)
    const two = await parallelRun(2, config)
    const one = await parallelRun(1, config)

    expect(two.result.stdout).toMatch(/agentevalops run: 2 shards in parallel on this machine; logs in /)
    // The shards' progress lines, each named by its shard.
    expect(two.result.stdout).toMatch(/agentevalops run: shard [12]\/2: \d+\/\d+ trials · pass /)
    expect(two.result.stdout).toMatch(/agentevalops run: shard 1\/2: done/)
    expect(two.result.stdout).toMatch(/agentevalops run: shard 2\/2: done/)
    expect(two.result.stdout).toContain(`agentevalops run: merged 2 shards (10 trials) into ${two.dir}`)

    const [m2, m1] = await Promise.all([readMetadata(two.dir), readMetadata(one.dir)])
    expect(m2).toMatchObject({ status: 'complete', shard: null })
    expect(m2.mergedFrom).toHaveLength(2)
    expect(m1.mergedFrom).toHaveLength(1)
    expect(m2.configHash).toBe(m1.configHash)
    expect(m2.benchmark).toEqual(m1.benchmark)

    const [s2, s1] = await Promise.all([readScores(two.dir), readScores(one.dir)])
    expect(s2.trials).toHaveLength(10)
    expect(byTrial(s2)).toEqual(byTrial(s1))
    expect(results(s2.summary)).toEqual(results(s1.summary))

    // Each shard's console output is in its log beside the merged bundle; the shards' own bundles are merged away.
    const [home] = await readdir(join(two.runsDir, '.parallel'))
    const files = (await readdir(join(two.runsDir, '.parallel', home!))).sort()
    expect(files).toEqual(['shard-1-of-2.log', 'shard-2-of-2.log'])
    const log = await readFile(join(two.runsDir, '.parallel', home!, 'shard-2-of-2.log'), 'utf8')
    expect(log).toMatch(/trials passed/)
  })

  it('a shard that fails without a bundle fails the run, named with its log; the other bundle is kept; it says how to rerun', async () => {
    const project = await newTemp('aeo-parallel-failing-')
    await symlink(join(REPO_ROOT, 'node_modules'), join(project, 'node_modules'), 'dir')
    await writeFile(join(project, 'package.json'), '{ "type": "module" }\n')
    await writeFile(join(project, 'mock.yaml'), MOCK_CONFIG)
    // Shard 2 of 2 cannot even start Vitest: its config throws, so it writes no bundle.
    await writeFile(
      join(project, 'vitest.config.ts'),
      [
        `import { defineConfig } from 'vitest/config'`,
        `import { agentEvalOps } from ${JSON.stringify(join(cli.dir, 'plugin', 'index.js'))}`,
        `if (process.env.AGENTEVALOPS_SHARD === '2/2') throw new Error('shard two cannot start on this machine')`,
        `export default defineConfig({ test: { projects: [{ plugins: [agentEvalOps()], test: { name: 'evals' } }] } })`,
        ``,
      ].join('\n'),
    )
    const runsDir = join(project, 'runs')
    const result = await runCli(
      cli,
      ['run', 'mock.yaml', '--parallel', '2', '--vitest-config', 'vitest.config.ts', '--output', 'runs'],
      { runsDir, cwd: project, timeoutMs: 120_000 },
    )
    expect(result.code, tail(result.output)).toBe(1)
    expect(await bundleDirs(runsDir), 'nothing merged').toEqual([])
    const [home] = await readdir(join(runsDir, '.parallel'))
    const shards = join('runs', '.parallel', home!)
    expect(result.stderr).toMatch(
      new RegExp(
        `shard 2/2 failed \\(exit 1\\) and wrote no bundle; its log: ${escape(join(shards, 'shard-2-of-2.log'))}`,
      ),
    )
    expect(await readFile(join(project, shards, 'shard-2-of-2.log'), 'utf8')).toContain(
      'shard two cannot start on this machine',
    )
    expect(result.stderr).toContain(`the bundles of the other shards are kept in ${shards}`)
    const kept = await bundleDirs(join(project, shards, 'shard-1-of-2'))
    expect(kept).toHaveLength(1)
    expect((await readMetadata(kept[0]!)).status).toBe('partial-shard')
    expect(result.stderr).toMatch(
      new RegExp(
        `rerun shard 2/2 with: AGENTEVALOPS_RUN_KEY=parallel-${escape(home!)} agentevalops run mock.yaml --shard 2/2 --output ${escape(join(shards, 'shard-2-of-2'))} --vitest-config vitest.config.ts`,
      ),
    )
    expect(result.stderr).toContain(
      `then merge them with: agentevalops merge ${join(shards, 'shard-1-of-2')} ${join(shards, 'shard-2-of-2')} --output runs`,
    )
  })

  it('SIGTERM cancels every shard: exit 130, no process of any shard left', async () => {
    const dir = await newTemp('aeo-parallel-cancel-')
    const config = join(dir, 'slow.yaml')
    await writeFile(
      config,
      [
        'name: slow',
        'benchmark: { id: toy, tasks: [arith-add, capital-france, iso-date, json-profile] }',
        'agent:',
        '  runner: mock-scripted',
        '  options:',
        '    default_delay_ms: 30000',
        'evaluators: [matches-expected]',
        '',
      ].join('\n'),
    )
    const runsDir = await newTemp('aeo-parallel-cancel-runs-')
    const proc = startCli(cli, ['run', config, '--parallel', '2', '--output', runsDir], { runsDir })
    try {
      // Both shards are running trials once each has printed Vitest's RUN line into its log.
      await pollUntil(
        async () => {
          if (proc.child.exitCode !== null) throw new Error(`exited early:\n${tail(proc.output)}`)
          const logs = await shardLogs(runsDir)
          return logs.length === 2 && logs.every((text) => /RUN/.test(text)) ? true : undefined
        },
        { timeoutMs: 60_000, intervalMs: 100, describe: () => `2 running shards\n${tail(proc.output)}` },
      )
      expect(await processesOf(runsDir)).not.toEqual([])
      proc.signal('SIGTERM')
      const result = await proc.waitForExit(60_000)
      expect(result.code, tail(result.output)).toBe(130)
      expect(result.stderr).toContain('SIGTERM: cancelling 2 shards')
      expect(result.stderr).toMatch(/cancelled; the shards' bundles \(status interrupted\) are in /)
      expect(await processesOf(runsDir), 'no shard process or Vitest worker outlives the run').toEqual([])
      expect(await bundleDirs(runsDir), 'nothing merged').toEqual([])
    } finally {
      proc.killGroup()
    }
  })
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

async function shardLogs(runsDir: string): Promise<string[]> {
  const parallel = join(runsDir, '.parallel')
  if (!existsSync(parallel)) return []
  const texts: string[] = []
  for (const home of await readdir(parallel))
    for (const name of await readdir(join(parallel, home)))
      if (name.endsWith('.log')) texts.push(await readFile(join(parallel, home, name), 'utf8'))
  return texts
}

/**
 * Live processes whose environment or command line names the run's runs folder: the shards (their --output) and
 * their Vitest workers (AGENTEVALOPS_RUNS_DIR), not the parent (its environment names a folder of its own).
 */
async function processesOf(runsDir: string): Promise<number[]> {
  const marker = join(runsDir, '.parallel')
  const found: number[] = []
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue
      const [environ, cmdline] = await Promise.all([
        readFile(`/proc/${name}/environ`, 'utf8'),
        readFile(`/proc/${name}/cmdline`, 'utf8'),
      ])
      if (environ.includes(marker) || cmdline.includes(marker)) found.push(Number(name))
    } catch {
      // ended while we looked, or not ours to read
    }
  }
  return found
}
