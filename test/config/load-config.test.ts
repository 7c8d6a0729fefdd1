import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ConfigError,
  formatFinding,
  loadRunConfig,
  parseRunConfig,
  type AdapterCatalog,
  type ConfigFinding,
} from '../../src/config/index.ts'
import { isAgentEvalOpsError } from '../../src/core/index.ts'
import { BUILTIN_IDS, fakeCatalog, HINT } from './fake-catalog.ts'

const RUNNERS = BUILTIN_IDS.runner.join(', ')

const catalog = fakeCatalog()

/** The ConfigError parseRunConfig throws for `text`; fails the test when it does not throw one. */
function configError(text: string, file = 'configs/x.yaml', cat: AdapterCatalog | undefined = catalog) {
  try {
    parseRunConfig(text, file, cat)
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError)
    return e as ConfigError
  }
  return expect.unreachable('parseRunConfig accepted an invalid config')
}

const lines = (text: string, cat?: AdapterCatalog) =>
  configError(text, 'configs/x.yaml', cat).message.split('\n')

const VALID = `name: ok
benchmark:
  id: toy
agent:
  runner: mock-scripted
`

describe('parseRunConfig: every mistake at once, each located', () => {
  // The acceptance test of issue #3: wrong type, unknown key, unknown runner id, negative limit, missing benchmark.
  const FIVE_MISTAKES = [
    '# A config with five mistakes, one of each kind.', //    1
    'name: five-mistakes', //                                  2  ← benchmark is missing from this mapping
    'trials: three', //                                        3  ← wrong type
    'concurency: 4', //                                        4  ← unknown key
    'agent:', //                                               5
    '  runner: mock-scriptd', //                               6  ← unknown runner id
    '  resource_limits:', //                                   7
    '    max_tokens: -100', //                                 8  ← negative limit
    '    max_turns: 12', //                                    9
    'evaluators: [matches-expected]', //                      10
    '',
  ].join('\n')

  it('reports five mistakes as five lines, each file:line:col path: message', () => {
    const error = configError(FIVE_MISTAKES, 'configs/five.yaml')
    expect(error.code).toBe('CONFIG_INVALID')
    expect(error.message.split('\n')).toEqual([
      'configs/five.yaml:2:1 benchmark: missing (expected a mapping with a benchmark id, e.g. { id: toy })',
      'configs/five.yaml:3:1 trials: expected a positive integer, got "three"',
      'configs/five.yaml:4:1 concurency: unknown key (expected one of: name, run_id, labels, benchmark, agent,' +
        ' evaluators, policy, scorer, trials, concurrency, gate, storage, compare). Did you mean "concurrency"?',
      `configs/five.yaml:6:3 agent.runner: unknown runner "mock-scriptd" (known: ${RUNNERS}). Did you mean "mock-scripted"? ${HINT}`,
      'configs/five.yaml:8:5 agent.resource_limits.max_tokens: expected a positive integer, got -100',
    ])
  })

  it('exposes the same findings as data', () => {
    const error = configError(FIVE_MISTAKES, 'configs/five.yaml')
    expect(isAgentEvalOpsError(error, 'CONFIG_INVALID')).toBe(true)
    expect(error.findings.map(({ line, col, path }) => `${line}:${col} ${path}`)).toEqual([
      '2:1 benchmark',
      '3:1 trials',
      '4:1 concurency',
      '6:3 agent.runner',
      '8:5 agent.resource_limits.max_tokens',
    ])
    expect(error.findings.every((f) => f.file === 'configs/five.yaml')).toBe(true)
    expect(error.findings.map(formatFinding).join('\n')).toBe(error.message)
  })

  it('reads like the issue example: a nested value is located at its key', () => {
    const text = [
      '# line 1', //                                 1
      'name: limits', //                             2
      'benchmark:', //                               3
      '  id: toy', //                                4
      '  tasks:', //                                 5
      '    - arith-add', //                          6
      'agent:', //                                   7
      '  runner: mock-scripted', //                  8
      '  options: {}', //                            9
      '  resource_limits:', //                      10
      '    max_turns: 12', //                       11
      '    max_tokens: lots', //                    12
      '',
    ].join('\n')
    expect(lines(text)).toEqual([
      'configs/x.yaml:12:5 agent.resource_limits.max_tokens: expected a positive integer, got "lots"',
    ])
  })

  it('locates a missing key at the key of the mapping that lacks it', () => {
    const text = ['name: x', 'benchmark:', '  id: toy', 'agent:', '  options: {}', ''].join('\n')
    expect(lines(text)).toEqual(['configs/x.yaml:4:1 agent.runner: missing (expected a runner id)'])
  })

  it('locates findings inside flow collections and list items, with indexed paths', () => {
    const text = [
      'name: x', //                                                                        1
      'benchmark: { id: toy, tasks: [arith-add, 7] }', //                                  2
      'agent: { runner: mock-scripted, resource_limits: { max_cost_usd: -1 } }', //       3
      'evaluators:', //                                                                    4
      '  - matches-expected', //                                                           5
      '  - { id: contains, option: { expected: Paris } }', //                             6
      '  - 42', //                                                                         7
      '  - nope', //                                                                       8
      'policy: [{ id: tool-acess, options: { deny: [delete_database] } }]', //            9
      '',
    ].join('\n')
    expect(lines(text)).toEqual([
      'configs/x.yaml:2:42 benchmark.tasks[1]: expected a task id, got 7',
      'configs/x.yaml:3:52 agent.resource_limits.max_cost_usd: expected a number of US dollars, 0 or more, got -1',
      'configs/x.yaml:6:21 evaluators[1].option: unknown key (expected one of: id, options). Did you mean "options"?',
      'configs/x.yaml:7:5 evaluators[2]: expected an evaluator id or a mapping { id, options }, got 42',
      `configs/x.yaml:8:5 evaluators[3]: unknown evaluator "nope" (known: contains, exact-match, json-equal, json-schema, llm-judge, matches-expected, numeric-match, regex-match, state, tool-use, trace-quality, trajectory-match). ${HINT}`,
      `configs/x.yaml:9:12 policy[0].id: unknown policy checker "tool-acess" (known: cost-ceiling, secret-leak, tool-access). Did you mean "tool-access"? ${HINT}`,
    ])
  })

  it('says what came for the wrong kind of value: a list, a mapping, an empty value, a string', () => {
    const text = [
      'name: Toy Smoke', //                   1
      'labels: { team: agents, year: 2025 }', // 2
      'benchmark:', //                        3
      'agent: [mock-scripted]', //            4
      'gate: all', //                         5
      'storage: { runs_dir: "" }', //         6
      'trials: 1.5', //                       7
      'concurrency: 0', //                    8
      'evaluators: { id: contains }', //      9
      '',
    ].join('\n')
    expect(lines(text)).toEqual([
      'configs/x.yaml:1:1 name: expected a name of lower-case letters, digits, ".", "_" or "-", got "Toy Smoke"',
      'configs/x.yaml:2:25 labels.year: expected a string (quote numbers and booleans), got 2025',
      'configs/x.yaml:3:1 benchmark: expected a mapping with a benchmark id, e.g. { id: toy }, got an empty value',
      'configs/x.yaml:4:1 agent: expected a mapping with a runner id, e.g. { runner: mock-scripted }, got a list',
      'configs/x.yaml:5:1 gate: expected "each" or a mapping { min_pass_rate: 0..1 }, got "all"',
      'configs/x.yaml:6:12 storage.runs_dir: expected a folder path, got ""',
      'configs/x.yaml:7:1 trials: expected a positive integer, got 1.5',
      'configs/x.yaml:8:1 concurrency: expected a positive integer, got 0',
      'configs/x.yaml:9:1 evaluators: expected a list of evaluators, got a mapping',
    ])
  })

  it('checks the fields of the gate mapping and unknown keys at every level', () => {
    const text = [
      'name: x',
      'benchmark: { id: toy, split: test }',
      'agent:',
      '  runner: mock-scripted',
      '  resource_limits: { max_tokens: 10, max_wall_time: 3 }',
      'gate: { min_pass_rate: 1.5, max_fail: 2 }',
      'storage: { runs: out }',
      '',
    ].join('\n')
    expect(configError(text).findings.map((f) => `${f.line}:${f.col} ${f.path}`)).toEqual([
      '2:23 benchmark.split',
      '5:38 agent.resource_limits.max_wall_time',
      '6:9 gate.min_pass_rate',
      '6:29 gate.max_fail',
      '7:12 storage.runs',
    ])
    expect(lines(text)[2]).toBe(
      'configs/x.yaml:6:9 gate.min_pass_rate: expected a pass rate between 0 and 1, got 1.5',
    )
  })

  it('reads the compare mapping (fail_on_broken and the comparison settings) and checks its fields', () => {
    const ok = parseRunConfig(
      `${VALID}compare: { fail_on_broken: true, max_drop: 0.1, min_pairs: 5 }\n`,
      'configs/x.yaml',
      catalog,
    )
    expect(ok.config.compare).toEqual({ failOnBroken: true, maxDrop: 0.1, minPairs: 5 })
    expect(parseRunConfig(VALID, 'configs/x.yaml', catalog).config.compare).toBeUndefined()
    const bad = `${VALID}compare: { fail_on_broken: yes please, alpha: 1, fail_on_brokn: true }\n`
    expect(lines(bad)).toEqual([
      'configs/x.yaml:6:12 compare.fail_on_broken: expected true or false, got "yes please"',
      'configs/x.yaml:6:40 compare.alpha: expected a significance level above 0 and below 1, e.g. 0.05, got 1',
      'configs/x.yaml:6:50 compare.fail_on_brokn: unknown key (expected one of: fail_on_broken, max_drop, alpha, min_pairs, force). Did you mean "fail_on_broken"?',
    ])
  })

  it('leaves options, labels and filter open to any keys', () => {
    const text = `${VALID}  options: { anything: [1, { nested: true }] }\nlabels: { any-label: x }\n`
    expect(parseRunConfig(text, 'x.yaml', catalog).config.agent.options).toEqual({
      anything: [1, { nested: true }],
    })
  })

  it('checks ids against the catalog only when one is given, and adds its hint only when it has one', () => {
    const text = VALID.replace('mock-scripted', 'my-agent')
    expect(parseRunConfig(text, 'x.yaml').config.agent.runner).toBe('my-agent')
    const noHint = fakeCatalog(undefined, false)
    expect(lines(text, noHint)).toEqual([
      `configs/x.yaml:5:3 agent.runner: unknown runner "my-agent" (known: ${RUNNERS})`,
    ])
    expect(lines(VALID.replace('id: toy', 'id: swe'), noHint)).toEqual([
      `configs/x.yaml:3:3 benchmark.id: unknown benchmark "swe" (known: ${BUILTIN_IDS.benchmark.join(', ')})`,
    ])
    expect(lines(`${VALID}scorer: bayes\n`, noHint)).toEqual([
      'configs/x.yaml:6:1 scorer: unknown scorer "bayes" (known: simple, stats)',
    ])
  })

  it('locates YAML syntax errors and reports them without schema echoes', () => {
    const text = ['name: x', 'labels: { team: agents ]', 'benchmark: { id: toy }', 'agent: 3', ''].join('\n')
    const error = configError(text)
    expect(error.code).toBe('CONFIG_INVALID')
    // `agent: 3` is wrong too, but a document that did not parse is not validated.
    expect(error.message.split('\n')).toEqual([
      'configs/x.yaml:2:24: Flow map in block collection must be sufficiently indented and end with a }',
    ])
    expect(error.findings).toEqual([
      {
        file: 'configs/x.yaml',
        line: 2,
        col: 24,
        path: '',
        message: 'Flow map in block collection must be sufficiently indented and end with a }',
      },
    ])
  })

  it('reports a duplicate key as a YAML error at the second key', () => {
    const text = `${VALID}name: again\n`
    expect(configError(text).findings).toEqual([
      expect.objectContaining({ line: 6, col: 1, path: '' }) as ConfigFinding,
    ])
  })

  it('reports an empty file as one finding', () => {
    expect(lines('# nothing here\n')).toEqual([
      'configs/x.yaml:1:1: the file is empty (expected a mapping with at least name, benchmark and agent)',
    ])
    expect(lines('- a list\n')).toEqual([
      'configs/x.yaml:1:1: expected a mapping with at least name, benchmark and agent, got a list',
    ])
  })

  it('follows aliases to the node they point at', () => {
    const text = [
      'name: x',
      'benchmark: { id: toy }',
      'agent:',
      '  runner: mock-scripted',
      '  resource_limits: &limits',
      '    max_turns: none',
      'evaluators: [matches-expected]',
      '',
    ].join('\n')
    expect(lines(text)).toEqual([
      'configs/x.yaml:6:5 agent.resource_limits.max_turns: expected a positive integer, got "none"',
    ])
  })
})

describe('loadRunConfig', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentevalops-config-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('reads a file and returns the config, its text and its hash', async () => {
    const file = join(dir, 'ok.yaml')
    await writeFile(file, VALID)
    const loaded = await loadRunConfig(file, catalog)
    expect(loaded.file).toBe(file)
    expect(loaded.raw).toBe(VALID)
    expect(loaded.config.name).toBe('ok')
    expect(loaded.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(loaded.hash).toBe(parseRunConfig(VALID, 'elsewhere.yaml').hash)
  })

  it('names the file it was given in every finding', async () => {
    const file = join(dir, 'bad.yaml')
    await writeFile(file, 'name: x\nbenchmark: { id: toy }\nagent: { runner: 7 }\n')
    await expect(loadRunConfig(file)).rejects.toThrow(
      `${file}:3:10 agent.runner: expected a runner id, got 7`,
    )
  })

  it('fails with CONFIG_INVALID when the file cannot be read', async () => {
    const file = join(dir, 'missing.yaml')
    const error: unknown = await loadRunConfig(file).catch((e: unknown) => e)
    expect(isAgentEvalOpsError(error, 'CONFIG_INVALID')).toBe(true)
    expect((error as Error).message).toContain(file)
    expect((error as Error).message).toContain('ENOENT')
  })
})

describe('the config hash', () => {
  it('is the same for the same config written differently (order, comments, flow style, defaults)', () => {
    const a = parseRunConfig(VALID, 'a.yaml').hash
    const b = parseRunConfig(
      '# same run\nagent: { runner: mock-scripted, options: {} }\nbenchmark: { id: toy }\nname: ok\ntrials: 1\n',
      'b.yaml',
    ).hash
    expect(b).toBe(a)
  })

  it('changes when the config changes', () => {
    expect(parseRunConfig(`${VALID}trials: 2\n`, 'a.yaml').hash).not.toBe(
      parseRunConfig(VALID, 'a.yaml').hash,
    )
  })
})
