import { describe, expect, it } from 'vitest'
import { parseRunConfig, RunConfig } from '../../src/config/index.ts'
import { fakeCatalog } from './fake-catalog.ts'

const MINIMAL = `name: toy-smoke
benchmark:
  id: toy
agent:
  runner: mock-scripted
`

describe('RunConfig', () => {
  it('applies the defaults to a minimal config', () => {
    expect(parseRunConfig(MINIMAL, 'x.yaml').config).toEqual({
      name: 'toy-smoke',
      labels: {},
      benchmark: { id: 'toy', options: {} },
      agent: { runner: 'mock-scripted', options: {}, resourceLimits: {} },
      evaluators: [],
      policy: [],
      scorer: 'stats',
      trials: 1,
      concurrency: 10,
      gate: 'each',
      storage: { runsDir: 'runs' },
    })
  })

  it('maps every snake_case field to its camelCase name', () => {
    const text = `# everything spelled out
name: full.run_1
run_id: nightly-42
labels: { team: agents, ticket: "123" }
benchmark:
  id: toy
  options: { seed: 7 }
  tasks: [arith-add, capital-france]
  filter: { category: [arithmetic, knowledge] }
agent:
  runner: mock-scripted
  options: { model: toy-model }
  resource_limits: { max_tokens: 5000, max_turns: 12, max_wall_seconds: 1.5, max_cost_usd: 0 }
evaluators: [matches-expected, { id: contains, options: { expected: Paris } }]
policy:
  - id: tool-access
    options: { deny: [delete_database] }
  - { id: cost-ceiling, options: { max_usd: 0.3 } }
scorer: simple
trials: 3
concurrency: 4
gate: { min_pass_rate: 0.8 }
storage: { runs_dir: out/runs }
`
    const { config } = parseRunConfig(text, 'x.yaml', fakeCatalog())
    expect(config).toEqual({
      name: 'full.run_1',
      runId: 'nightly-42',
      labels: { team: 'agents', ticket: '123' },
      benchmark: {
        id: 'toy',
        options: { seed: 7 },
        tasks: ['arith-add', 'capital-france'],
        filter: { category: ['arithmetic', 'knowledge'] },
      },
      agent: {
        runner: 'mock-scripted',
        options: { model: 'toy-model' },
        resourceLimits: { maxTokens: 5000, maxTurns: 12, maxWallSeconds: 1.5, maxCostUsd: 0 },
      },
      evaluators: [
        { id: 'matches-expected', options: {} },
        { id: 'contains', options: { expected: 'Paris' } },
      ],
      // Options stay as written: the adapter's factory takes them.
      policy: [
        { id: 'tool-access', options: { deny: ['delete_database'] } },
        { id: 'cost-ceiling', options: { max_usd: 0.3 } },
      ],
      scorer: 'simple',
      trials: 3,
      concurrency: 4,
      gate: { minPassRate: 0.8 },
      storage: { runsDir: 'out/runs' },
    })
  })

  it('normalizes the string shorthand of evaluators and policy checkers to { id, options }', () => {
    const { config } = parseRunConfig(
      `${MINIMAL}evaluators: [exact-match, { id: regex-match }]\npolicy: [tool-access]\n`,
      'x.yaml',
    )
    expect(config.evaluators).toEqual([
      { id: 'exact-match', options: {} },
      { id: 'regex-match', options: {} },
    ])
    expect(config.policy).toEqual([{ id: 'tool-access', options: {} }])
  })

  it('leaves out the limits that are not given, and accepts a zero cost limit', () => {
    const text = MINIMAL + '  resource_limits:\n    max_turns: 3\n    max_cost_usd: 0\n'
    expect(parseRunConfig(text, 'x.yaml').config.agent.resourceLimits).toStrictEqual({
      maxTurns: 3,
      maxCostUsd: 0,
    })
  })

  it('rejects limits that are not positive (the cost limit may be 0) or not integers', () => {
    const input = (limits: object) => ({
      name: 'x',
      benchmark: { id: 'b' },
      agent: { runner: 'r', resource_limits: limits },
    })
    for (const limits of [
      { max_tokens: 0 },
      { max_turns: -1 },
      { max_tokens: 2.5 },
      { max_wall_seconds: 0 },
      { max_cost_usd: -0.01 },
    ])
      expect(RunConfig.safeParse(input(limits)).success, JSON.stringify(limits)).toBe(false)
    expect(RunConfig.safeParse(input({ max_cost_usd: 0, max_wall_seconds: 0.5 })).success).toBe(true)
  })

  it('allows an env reference in the run id, but no path separators', () => {
    const base = { name: 'x', benchmark: { id: 'b' }, agent: { runner: 'r' } }
    expect(RunConfig.parse({ ...base, run_id: 'ci-${GITHUB_RUN_ID}' }).runId).toBe('ci-${GITHUB_RUN_ID}')
    for (const runId of ['../escape', 'a/b', '..', ''])
      expect(RunConfig.safeParse({ ...base, run_id: runId }).success, runId).toBe(false)
  })

  it('reports a task id listed twice', () => {
    const result = RunConfig.safeParse({
      name: 'x',
      benchmark: { id: 'b', tasks: ['a', 'b', 'a'] },
      agent: { runner: 'r' },
    })
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ path: ['benchmark', 'tasks', 2], message: 'task id "a" is listed twice' }),
    ])
  })
})
