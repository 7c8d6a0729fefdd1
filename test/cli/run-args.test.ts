// `agentevalops run`: its arguments, the environment it hands the plugin, the Vitest options, and everything it
// decides before Vitest starts (help, usage errors, config errors): all in process, no Vitest started.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseRunArgs, runEnvironment, vitestOptions, type RunArgs } from '../../src/cli/commands/run.ts'
import { shardArgs } from '../../src/cli/commands/run-parallel.ts'
import type { CliIO } from '../../src/cli/io.ts'
import { main } from '../../src/cli/main.ts'

function recorder(): CliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = []
  const stderr: string[] = []
  return { stdout, stderr, out: (line) => void stdout.push(line), err: (line) => void stderr.push(line) }
}

async function cli(...argv: string[]) {
  const io = recorder()
  const code = await main(argv, io)
  return { code, stdout: io.stdout.join('\n'), stderr: io.stderr.join('\n'), errLines: io.stderr }
}

const BASE: RunArgs = parseRunArgs(['configs/toy_smoke.yaml'])

describe('parseRunArgs', () => {
  it('takes config files and every pass-through option, repeatable ones as lists', () => {
    expect(
      parseRunArgs([
        'a.yaml',
        'b.yaml',
        '-t',
        'arith',
        '--shard=2/3',
        '--trials',
        '5',
        '--concurrency=4',
        '--output',
        'out/runs',
        '--label',
        'team=evals',
        '--label',
        'note=a=b',
        '--reporter',
        'dot',
        '--reporter=junit',
        '--resume',
        'runs/a',
        '--resume=runs/b',
        '--baseline',
        'latest',
        '--passWithNoTests',
      ]),
    ).toEqual({
      help: false,
      configs: ['a.yaml', 'b.yaml'],
      testNamePattern: 'arith',
      passWithNoTests: true,
      shard: '2/3',
      trials: 5,
      concurrency: 4,
      output: 'out/runs',
      labels: { team: 'evals', note: 'a=b' },
      reporters: ['dot', 'junit'],
      vitestConfig: undefined,
      project: undefined,
      resume: ['runs/a', 'runs/b'],
      baseline: 'latest',
    })
    expect(BASE).toMatchObject({
      configs: ['configs/toy_smoke.yaml'],
      labels: {},
      reporters: [],
      trials: undefined,
    })
    expect(parseRunArgs(['--testNamePattern', 'x', 'a.yaml']).testNamePattern).toBe('x')
    expect(parseRunArgs(['--help']).help).toBe(true)
    expect(
      parseRunArgs(['a.yaml', '--vitest-config', 'vitest.config.ts', '--project', 'agents']),
    ).toMatchObject({ vitestConfig: 'vitest.config.ts', project: 'agents' })
  })

  it.each([
    [[], /missing the config file/],
    [['a.yaml', '--trials', '0'], /--trials must be a whole number ≥ 1, got "0"/],
    [['a.yaml', '--trials', 'two'], /--trials must be a whole number/],
    [['a.yaml', '--concurrency', '1.5'], /--concurrency must be a whole number/],
    [['a.yaml', '--shard', '3/2'], /--shard must be <index>\/<count>/],
    [['a.yaml', '--shard', 'x'], /--shard must be/],
    [['a.yaml', '--label', 'novalue'], /--label must be key=value, got "novalue"/],
    [['a.yaml', '--label', '=v'], /--label must be key=value/],
    [['a.yaml', '--project', 'evals'], /give --vitest-config <file> too/],
    [['a.yaml', '--bogus'], /Unknown option '--bogus'/],
    [['a.yaml', '--parallel', '0'], /--parallel must be a whole number ≥ 1, got "0"/],
    [
      ['a.yaml', '--parallel', '2', '--shard', '1/2'],
      /--parallel runs every shard of the run itself: drop --shard/,
    ],
    [['a.yaml', '--parallel=2', '--baseline', 'latest'], /--parallel does not take --baseline/],
    [['a.yaml', '--parallel=2', '--resume', 'runs/a'], /--parallel does not take --resume/],
  ])('rejects %j as a usage error', (args, message) => {
    expect(() => parseRunArgs(args)).toThrow(
      expect.objectContaining({ code: 'USAGE', message: expect.stringMatching(message) as unknown }),
    )
  })
})

describe('--parallel', () => {
  it('takes the shard count', () => {
    expect(parseRunArgs(['a.yaml', '--parallel', '3']).parallel).toBe(3)
    expect(BASE.parallel).toBeUndefined()
  })

  it("gives each shard the run's own arguments, absolute, with its shard and runs folder", () => {
    const args = parseRunArgs([
      'configs/a.yaml',
      '--parallel=2',
      '-t',
      'arith',
      '--trials',
      '3',
      '--concurrency',
      '2',
      '--label',
      'team=evals',
      '--reporter',
      'dot',
      '--output',
      'elsewhere',
      '--passWithNoTests',
    ])
    expect(shardArgs(args, '/proj', '2/2', '/proj/runs/.parallel/x/shard-2-of-2')).toEqual([
      '/proj/configs/a.yaml',
      '--shard',
      '2/2',
      '--output',
      '/proj/runs/.parallel/x/shard-2-of-2',
      '-t',
      'arith',
      '--passWithNoTests',
      '--trials',
      '3',
      '--concurrency',
      '2',
      '--label',
      'team=evals',
      '--reporter',
      'dot',
    ])
  })
})

describe('runEnvironment', () => {
  it('names the configs by absolute path and marks the run as the CLI’s; nothing else by default', () => {
    expect(runEnvironment(parseRunArgs(['configs/a.yaml', '/abs/b.yaml']), '/proj')).toEqual({
      AGENTEVALOPS_CONFIG: ['/proj/configs/a.yaml', '/abs/b.yaml'].join(delimiter),
      AGENTEVALOPS_RUN_CLI: '1',
    })
  })

  it('turns --trials, --concurrency, --output, --label and --shard into their variables', () => {
    const args = parseRunArgs([
      'a.yaml',
      '--trials',
      '3',
      '--concurrency',
      '7',
      '-o',
      'out',
      '--label',
      'k=v w',
    ])
    expect(runEnvironment(args, '/proj')).toEqual({
      AGENTEVALOPS_CONFIG: '/proj/a.yaml',
      AGENTEVALOPS_RUN_CLI: '1',
      AGENTEVALOPS_TRIALS: '3',
      AGENTEVALOPS_MAX_CONCURRENCY: '7',
      AGENTEVALOPS_RUNS_DIR: '/proj/out',
      AGENTEVALOPS_LABELS: '{"k":"v w"}',
    })
    expect(runEnvironment(parseRunArgs(['a.yaml', '--shard', '2/3']), '/proj')).toMatchObject({
      AGENTEVALOPS_SHARD: '2/3',
    })
  })
})

describe('vitestOptions', () => {
  it('runs once without a config file, the root project named evals carrying the plugin', () => {
    expect(vitestOptions(BASE, '/proj')).toEqual({
      options: { root: '/proj', watch: false, run: true, config: false, name: 'evals' },
      usePlugin: true,
    })
  })

  it('passes -t and --reporter through, but not --shard (config mode shards tasks, not its one file)', () => {
    const args = parseRunArgs([
      'a.yaml',
      '-t',
      'x|y',
      '--shard',
      '1/2',
      '--reporter',
      'dot',
      '--reporter',
      'junit',
    ])
    expect(vitestOptions(args, '/proj').options).toMatchObject({
      testNamePattern: 'x|y',
      reporters: ['dot', 'junit'],
    })
    expect(vitestOptions(parseRunArgs(['a.yaml', '--passWithNoTests']), '/proj').options).toMatchObject({
      passWithNoTests: true,
    })
    expect(vitestOptions(args, '/proj').options).not.toHaveProperty('shard')
    // Without --reporter, Vitest picks (default, plus github-actions on GitHub).
    expect(vitestOptions(BASE, '/proj').options).not.toHaveProperty('reporters')
  })

  it("uses the user's Vitest config and project with --vitest-config, without adding the plugin", () => {
    expect(vitestOptions(parseRunArgs(['a.yaml', '--vitest-config', 'v.ts']), '/proj')).toEqual({
      options: { root: '/proj', watch: false, run: true, config: 'v.ts', project: 'evals' },
      usePlugin: false,
    })
    expect(
      vitestOptions(parseRunArgs(['a.yaml', '--vitest-config', 'v.ts', '--project', 'agents']), '/proj')
        .options.project,
    ).toBe('agents')
  })
})

describe('agentevalops run, before Vitest starts', () => {
  let dir: string
  const saved = { ...process.env }
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'aeo-run-args-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name]
  })

  it('prints its help with every option and exit code, exit 0', async () => {
    const { code, stdout } = await cli('run', '--help')
    expect(code).toBe(0)
    expect(stdout).toMatch(/^Usage: agentevalops run <config\.yaml…> \[options\]/)
    for (const flag of [
      '-t, --testNamePattern',
      '--shard',
      '--trials',
      '--concurrency',
      '--output',
      '--label',
      '--reporter',
      '--vitest-config',
      '--project',
      '--parallel <n>',
    ])
      expect(stdout).toContain(flag)
    expect(stdout).toMatch(/\n {2}130 {2}interrupted/)
  })

  it('exits 2 with a usage line for bad arguments', async () => {
    const { code, stderr } = await cli('run')
    expect(code).toBe(2)
    expect(stderr).toMatch(/^agentevalops run: missing the config file/)
  })

  it('exits 2 with one located line per finding, across every config, and runs nothing', async () => {
    const a = join(dir, 'a.yaml')
    const b = join(dir, 'b.yaml')
    await writeFile(a, 'name: a\ntrials: -1\nbenchmark: { id: toy }\nagent: { runner: mock-scripted }\n')
    await writeFile(b, 'name: b\nbenchmark: { id: nope }\nagent: { runner: mock-scripted, colour: red }\n')
    const { code, stdout, errLines } = await cli('run', a, b, '--output', join(dir, 'runs'))
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(errLines).toHaveLength(4)
    expect(errLines[0]).toBe(`${a}:2:1 trials: expected a positive integer, got -1`)
    expect(errLines[1]).toMatch(new RegExp(`^${b}:2:14 benchmark\\.id: unknown benchmark "nope"`))
    expect(errLines[2]).toMatch(new RegExp(`^${b}:3:33 agent\\.colour: unknown key`))
    expect(errLines[3]).toBe('agentevalops run: 3 problems in the config; nothing was run.')
    expect(await readdir(dir)).toEqual(['a.yaml', 'b.yaml'])
    // The environment of this process is left as it was.
    expect(process.env.AGENTEVALOPS_CONFIG).toBe(saved.AGENTEVALOPS_CONFIG)
  })

  it('exits 2 for a config file that does not exist, or two configs of the same name', async () => {
    const missing = await cli('run', join(dir, 'missing.yaml'))
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('cannot read the config file')
    const config = 'name: same\nbenchmark: { id: toy }\nagent: { runner: mock-scripted }\n'
    await writeFile(join(dir, 'x.yaml'), config)
    await writeFile(join(dir, 'y.yaml'), config)
    const twice = await cli('run', join(dir, 'x.yaml'), join(dir, 'y.yaml'))
    expect(twice.code).toBe(2)
    expect(twice.stderr).toContain('are both named "same"')
  })

  it("exits 2, naming the variable, when the engine's shard index makes no shard; nothing runs", async () => {
    const config = 'name: engine\nbenchmark: { id: toy }\nagent: { runner: mock-scripted }\n'
    await writeFile(join(dir, 'engine.yaml'), config)
    const saved = { ...process.env }
    try {
      delete process.env.AGENTEVALOPS_SHARD
      process.env.AWS_BATCH_JOB_ARRAY_INDEX = '7'
      process.env.AGENTEVALOPS_SHARD_COUNT = '4'
      const r = await cli('run', join(dir, 'engine.yaml'))
      expect(r.code).toBe(2)
      expect(r.stderr).toContain('AWS_BATCH_JOB_ARRAY_INDEX=7 is out of range for 4 shards')
      expect(r.stderr).toContain('nothing was run')
    } finally {
      for (const name of ['AWS_BATCH_JOB_ARRAY_INDEX', 'AGENTEVALOPS_SHARD_COUNT', 'AGENTEVALOPS_SHARD']) {
        if (saved[name] === undefined) delete process.env[name]
        else process.env[name] = saved[name]
      }
    }
  })
})
