import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { replayCommand, type ConfigReplay, type ReplayInput } from '../../reporters/replay-command.ts'

const exec = promisify(execFile)
const HEADER = '# from the Vitest root of the project'

function input(overrides: Partial<ReplayInput> = {}): ReplayInput {
  return {
    root: '/proj',
    project: 'evals',
    files: ['/proj/evals/b.eval.ts', '/proj/evals/a.eval.ts'],
    testNamePattern: null,
    shard: null,
    env: {},
    ...overrides,
  }
}

/** The words bash makes of `words` (a quoted argument list), printed NUL-separated so newlines survive. */
async function bashWords(words: string): Promise<string[]> {
  const { stdout } = await exec('bash', ['-c', `printf '%s\\0' ${words}`], {
    env: { PATH: process.env.PATH },
  })
  return stdout.split('\0').slice(0, -1)
}

describe('replayCommand', () => {
  it('reruns the project and its files, relative to the root and sorted', () => {
    expect(replayCommand(input())).toBe(
      `${HEADER}\nnpx vitest run --project evals evals/a.eval.ts evals/b.eval.ts\n`,
    )
    expect(replayCommand(input({ files: [] }))).toBe(`${HEADER}\nnpx vitest run --project evals\n`)
  })

  it('adds the name pattern and the shard when the run had them', () => {
    expect(replayCommand(input({ testNamePattern: 'arith', shard: { index: 2, count: 3 } }))).toBe(
      `${HEADER}\nnpx vitest run --project evals evals/a.eval.ts evals/b.eval.ts -t arith --shard=2/3\n`,
    )
  })

  it('quotes a pattern with a space and a quote so the shell hands it over intact', async () => {
    const pattern = "toy > it's a test"
    const command = replayCommand(input({ testNamePattern: pattern }))
    expect(command).toContain(`-t 'toy > it'\\''s a test'`)
    const line = command.split('\n')[1]!
    expect(line.startsWith('npx vitest run ')).toBe(true)
    expect(await bashWords(line.slice('npx '.length))).toEqual([
      'vitest',
      'run',
      '--project',
      'evals',
      'evals/a.eval.ts',
      'evals/b.eval.ts',
      '-t',
      pattern,
    ])
  })

  it('round-trips every awkward argument through a real shell', async () => {
    const pattern = 'say "hi" $HOME `id` \\ * ? [a] ; | & ( ) ~ \'q\' # done\nsecond line'
    const project = "my project's evals"
    const files = ['/proj/dir with space/x $y.eval.ts', '/proj/evals/plain.eval.ts', '/other/z.eval.ts']
    const command = replayCommand(
      input({ project, files, testNamePattern: pattern, shard: { index: 1, count: 4 } }),
    )
    const line = command.slice(command.indexOf('\n') + 1, command.lastIndexOf('\n'))
    expect(await bashWords(line)).toEqual([
      'npx',
      'vitest',
      'run',
      '--project',
      project,
      '../other/z.eval.ts',
      'dir with space/x $y.eval.ts',
      'evals/plain.eval.ts',
      '-t',
      pattern,
      '--shard=1/4',
    ])
  })

  it('names the AGENTEVALOPS_* variables that were set, sorted, but never their values', () => {
    const secret = 'sk-live-SECRET-do-not-leak-1234'
    const command = replayCommand(
      input({
        env: {
          AGENTEVALOPS_RUNS_DIR: '/var/runs/private',
          AGENTEVALOPS_API_KEY: secret,
          OTHER_TOKEN: 'other-secret-value',
          PATH: '/usr/bin',
        },
      }),
    )
    expect(command.split('\n')).toEqual([
      HEADER,
      'npx vitest run --project evals evals/a.eval.ts evals/b.eval.ts',
      '# environment variables that were set (values not recorded): AGENTEVALOPS_API_KEY AGENTEVALOPS_RUNS_DIR',
      '',
    ])
    for (const value of [secret, '/var/runs/private', 'other-secret-value', 'OTHER_TOKEN', '/usr/bin'])
      expect(command).not.toContain(value)
  })

  describe('for a config-mode run', () => {
    const CONFIG_HEADER = '# from the Vitest root of the project (the config paths are relative to it)'
    const config = (overrides: Partial<ConfigReplay> = {}): ConfigReplay => ({
      configs: ['configs/b.yaml', 'configs/a.yaml'],
      trials: null,
      concurrency: null,
      labels: {},
      envRefs: [],
      ...overrides,
    })

    it('is agentevalops run with the configs in their order, not vitest with the eval file', () => {
      expect(
        replayCommand(
          input({ files: ['/proj/node_modules/agentevalops/dist/plugin/config-eval.js'], config: config() }),
        ),
      ).toBe(`${CONFIG_HEADER}\nnpx agentevalops run configs/b.yaml configs/a.yaml\n`)
    })

    it('adds -t, --shard, and --trials, --concurrency and sorted --labels when the run overrode them', async () => {
      const command = replayCommand(
        input({
          testNamePattern: "arith|it's",
          shard: { index: 1, count: 2 },
          config: config({ trials: 3, concurrency: 4, labels: { team: 'qa core', a: 'x=y' } }),
        }),
      )
      const line = command.split('\n')[1]!
      expect(line).toBe(
        `npx agentevalops run configs/b.yaml configs/a.yaml -t 'arith|it'\\''s' --shard=1/2 --trials 3 --concurrency 4 --label a=x=y --label 'team=qa core'`,
      )
      expect(await bashWords(line)).toEqual([
        'npx',
        'agentevalops',
        'run',
        'configs/b.yaml',
        'configs/a.yaml',
        '-t',
        "arith|it's",
        '--shard=1/2',
        '--trials',
        '3',
        '--concurrency',
        '4',
        '--label',
        'a=x=y',
        '--label',
        'team=qa core',
      ])
    })

    it('names the variables the arguments do not carry, and those the configs refer to, never values', () => {
      const command = replayCommand(
        input({
          env: {
            AGENTEVALOPS_CONFIG: '/proj/configs/b.yaml',
            AGENTEVALOPS_TRIALS: '3',
            AGENTEVALOPS_MAX_CONCURRENCY: '4',
            AGENTEVALOPS_LABELS: '{"team":"qa"}',
            AGENTEVALOPS_RUN_CLI: '1',
            AGENTEVALOPS_RUNS_DIR: '/secret/place',
            API_KEY: 'sk-secret',
          },
          config: config({ envRefs: ['API_KEY', 'CI_RUN'] }),
        }),
      )
      expect(command.split('\n')).toEqual([
        CONFIG_HEADER,
        'npx agentevalops run configs/b.yaml configs/a.yaml',
        '# environment variables that were set (values not recorded): AGENTEVALOPS_RUNS_DIR',
        '# environment variables the configs refer to (values not recorded): API_KEY CI_RUN',
        '',
      ])
      expect(command).not.toContain('sk-secret')
      expect(command).not.toContain('/secret/place')
    })
  })
})
