// Real agents from YAML: each of configs/agent_*.yaml is loaded as `agentevalops run` loads it (loadConfigSet,
// against the built-in registry), its adapters are built as the config-driven eval file builds them (env references
// expanded, paths beside the config), and one trial of it runs through the engine — the model runners against the
// fake servers on 127.0.0.1, the command runner as a real child process, the callable from a TypeScript module
// imported through Vite.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { builtinRegistry } from '../../plugin/builtin-adapters.ts'
import { loadConfigSet } from '../../plugin/vite-plugin.ts'
import { ConfigError, expandEnvRefs, parseRunConfig } from '../../src/config/index.ts'
import type { JsonObject, TraceEvent } from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { MemoryTraceStore } from '../../src/stores/index.ts'
import { FakeMessagesServer, messageReply, textReply, toolUseBlock } from '../support/fake-messages-server.ts'
import { FakeOpenAIServer } from '../support/fake-openai-server.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

async function runConfig(file: string, env: NodeJS.ProcessEnv = process.env) {
  const set = await loadConfigSet(ROOT, [file], env)
  const [{ config, file: shown }] = set.provided.configs as [(typeof set.provided.configs)[number]]
  const registry = builtinRegistry()
  const context = { baseDir: dirname(join(ROOT, shown)) }
  const create = <K extends 'runner' | 'benchmark' | 'evaluator'>(kind: K, id: string, options: JsonObject) =>
    registry.create(kind, id, expandEnvRefs(options, env, shown) as JsonObject, context)
  const benchmark = create('benchmark', config.benchmark.id, config.benchmark.options)
  const [task] = await benchmark.listTasks()
  const runner = create('runner', config.agent.runner, config.agent.options)
  const warnings: string[] = []
  const run = await runTrial({
    runId: `run-${config.name}`,
    benchmark: await benchmark.info(),
    task: task!,
    trial: 0,
    runner,
    evaluators: config.evaluators.map((e) => create('evaluator', e.id, e.options)),
    limits: config.agent.resourceLimits,
    traceStore: new MemoryTraceStore(),
    onWarning: (w) => warnings.push(w),
  })
  return { ...run, runner, warnings }
}

function toolCalls(events: readonly TraceEvent[]): unknown[] {
  return events.filter((e) => e.kind === 'agent.tool_call').map((e) => (e.payload as { tool: string }).tool)
}

function expectWeatherAnswered(run: Awaited<ReturnType<typeof runConfig>>): void {
  expect(run.record.outcome, JSON.stringify(run.record.result?.error)).toBe('passed')
  expect(toolCalls(run.events)).toEqual(['get_weather', 'convert'])
  expect(run.record.scores.map((s) => [s.evaluatorId, s.passed])).toEqual([
    ['numeric-match', true],
    ['tool-use', true],
  ])
}

describe('configs/agent_*.yaml run real agents', () => {
  let server: FakeMessagesServer | undefined
  beforeEach(() => {
    server = undefined
  })
  afterEach(async () => {
    vi.unstubAllEnvs()
    await server?.close()
  })

  it('anthropic: a Claude tool loop against the fake Messages API, with tool handlers from a TypeScript module', async () => {
    server = await FakeMessagesServer.start({ apiKey: 'sk-ant-yaml-test' })
    server.enqueue(
      messageReply({ content: [toolUseBlock('get_weather', { city: 'Paris' }, 'toolu_01')] }),
      messageReply({ content: [toolUseBlock('convert', { celsius: 18 }, 'toolu_02')] }),
      textReply('64.4'),
    )
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-yaml-test')
    vi.stubEnv('ANTHROPIC_BASE_URL', server.url)
    const run = await runConfig('configs/agent_anthropic.yaml')
    expectWeatherAnswered(run)
    expect(server.problems).toEqual([])
    expect(server.requests).toHaveLength(3)
    // The config's system prompt went out; the handlers' results came back to the model.
    expect((server.requests[0]!.body as { system?: string }).system).toMatch(/^You answer weather questions/)
    expect(JSON.stringify(server.requests[2]!.body)).toContain('64.4')
    const results = run.events.filter((e) => e.kind === 'agent.tool_result').map((e) => e.payload)
    expect(results).toMatchObject([
      { result: { city: 'Paris', celsius: 18 } },
      { result: { fahrenheit: 64.4 } },
    ])
    expect(run.runner.runnerInfo()).toMatchObject({
      kind: 'anthropic',
      config: { model: 'claude-sonnet-4-6', tools: 'agents/weather-tools.ts#tools' },
    })
    // The key is in no event.
    expect(JSON.stringify(run.events)).not.toContain('sk-ant-yaml-test')
  })

  it('anthropic: base_url from a ${VAR} reference wins over ANTHROPIC_BASE_URL', async () => {
    server = await FakeMessagesServer.start({ apiKey: 'sk-ant-yaml-test' })
    server.enqueue(textReply('64.4'))
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-yaml-test')
    vi.stubEnv('ANTHROPIC_BASE_URL', 'http://127.0.0.1:9') // nothing listens there
    vi.stubEnv('AEO_YAML_GATEWAY', server.url)
    const text = `name: gateway
benchmark: { id: dataset, options: { path: agents/weather.yaml } }
agent: { runner: anthropic, options: { model: claude-sonnet-4-6, base_url: "\${AEO_YAML_GATEWAY}", max_tokens: 64 } }
`
    const registry = builtinRegistry()
    const { config } = parseRunConfig(text, 'configs/gateway.yaml', registry)
    const context = { baseDir: join(ROOT, 'configs') }
    const options = expandEnvRefs(config.agent.options, process.env) as JsonObject
    const benchmark = registry.create('benchmark', 'dataset', config.benchmark.options, context)
    const [task] = await benchmark.listTasks()
    const run = await runTrial({
      runId: 'r',
      benchmark: await benchmark.info(),
      task: task!,
      trial: 0,
      runner: registry.create('runner', 'anthropic', options, context),
      traceStore: new MemoryTraceStore(),
    })
    expect(run.record.outcome, JSON.stringify(run.record.result?.error)).not.toBe('infra_failure')
    expect(run.record.result?.finalAnswer).toBe('64.4')
    expect(server.requests).toHaveLength(1)
    expect((server.requests[0]!.body as { max_tokens: number }).max_tokens).toBe(64)
  })

  it('openai: a tool loop against the fake OpenAI-compatible server, with tool handlers from a TypeScript module', async () => {
    const openai = await FakeOpenAIServer.start()
    try {
      openai.enqueue(
        { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
        { toolCalls: [{ id: 'call_2', name: 'convert', arguments: { celsius: 18 } }] },
        { text: '64.4' },
      )
      vi.stubEnv('OPENAI_API_KEY', 'sk-openai-yaml-test')
      vi.stubEnv('OPENAI_BASE_URL', openai.url)
      const run = await runConfig('configs/agent_openai.yaml')
      expectWeatherAnswered(run)
      expect(openai.requests).toHaveLength(3)
      expect(JSON.stringify(openai.requests[2]!.body)).toContain('64.4')
      expect(run.runner.runnerInfo()).toMatchObject({
        config: { model: 'gpt-4.1-mini', tools: 'agents/weather-tools.ts#tools' },
      })
      expect(JSON.stringify(run.events)).not.toContain('sk-openai-yaml-test')
    } finally {
      await openai.close()
    }
  })

  it('command: a CLI agent as a child process, its JSON lines read as the generic format', async () => {
    const run = await runConfig('configs/agent_command.yaml')
    expectWeatherAnswered(run)
    expect(run.runner.runnerInfo()).toMatchObject({
      kind: 'command',
      config: {
        argv: ['node', 'weather-command.mjs'],
        passEnv: ['PATH', 'HOME'],
        envNames: ['AGENT_CITY_DEFAULT'],
      },
    })
  })

  it('callable: a TypeScript function from a module beside the config, loaded through Vite', async () => {
    const run = await runConfig('configs/agent_callable.yaml')
    expectWeatherAnswered(run)
    expect(run.runner.runnerInfo()).toEqual({
      name: 'callable:weatherAgent',
      kind: 'callable',
      config: { module: 'agents/weather-agent.ts#weatherAgent' },
    })
  })

  it('callable: a missing export fails the trial with CONFIG_INVALID naming the exports there', async () => {
    const text = `name: x
benchmark: { id: dataset, options: { path: agents/weather.yaml } }
agent: { runner: callable, options: { module: agents/weather-agent.ts, export: weatherAgnt } }
`
    const registry = builtinRegistry()
    const { config } = parseRunConfig(text, 'configs/x.yaml', registry)
    const runner = registry.create('runner', config.agent.runner, config.agent.options, {
      baseDir: join(ROOT, 'configs'),
    })
    const benchmark = registry.create('benchmark', 'dataset', config.benchmark.options, {
      baseDir: join(ROOT, 'configs'),
    })
    const [task] = await benchmark.listTasks()
    const run = await runTrial({
      runId: 'r',
      benchmark: await benchmark.info(),
      task: task!,
      trial: 0,
      runner,
      traceStore: new MemoryTraceStore(),
    })
    expect(run.record.outcome).not.toBe('passed')
    expect(JSON.stringify(run.record.result?.error ?? run.record)).toMatch(
      /has no export \\"weatherAgnt\\".*Its exports are: weatherAgent/,
    )
  })

  it('a module path that does not exist is a config error when the runner is made', () => {
    expect(() =>
      builtinRegistry().create(
        'runner',
        'callable',
        { module: 'agents/nope.ts' },
        { baseDir: join(ROOT, 'configs') },
      ),
    ).toThrow(/module "agents\/nope.ts" does not exist/)
  })
})

describe('runner options are checked where the config is read: located, with "did you mean"', () => {
  const errorOf = (text: string): ConfigError => {
    try {
      parseRunConfig(text, 'configs/typo.yaml', builtinRegistry())
    } catch (e) {
      if (e instanceof ConfigError) return e
      throw e
    }
    throw new Error('the config was accepted')
  }

  it('a misspelled anthropic option names its line, column and path, and the option meant', () => {
    const e = errorOf(`name: typo
benchmark: { id: toy }
agent:
  runner: anthropic
  options:
    modell: claude-sonnet-4-6
`)
    expect(e.findings).toContainEqual({
      file: 'configs/typo.yaml',
      line: 6,
      col: 5,
      path: 'agent.options.modell',
      message: 'runner "anthropic": unknown option. Did you mean "model"?',
    })
    // The option it lacks because of the typo, at the mapping that lacks it.
    const missing = e.findings.find((f) => f.path === 'agent.options.model')
    expect(missing).toMatchObject({ line: 5, message: 'runner "anthropic": missing (a required option)' })
  })

  it('each real-agent runner: a typo, a wrong type, a nested typo', () => {
    const e = errorOf(`name: typo
benchmark: { id: toy }
agent:
  runner: command
  options:
    argv: [node, agent.mjs]
    pass_envs: [PATH]
    kill_grace_ms: soon
`)
    expect(e.message).toContain(
      'configs/typo.yaml:7:5 agent.options.pass_envs: runner "command": unknown option. Did you mean "pass_env"?',
    )
    expect(e.message).toMatch(
      /configs\/typo\.yaml:8:5 agent\.options\.kill_grace_ms: runner "command": .*number/,
    )

    const nested = errorOf(`name: typo
benchmark: { id: toy }
agent:
  runner: anthropic
  options: { model: m, tools: { module: ./t.ts, exprt: tools } }
`)
    expect(nested.findings).toMatchObject([
      { line: 5, path: 'agent.options.tools.exprt', message: 'runner "anthropic": unknown option' },
    ])

    const openai = errorOf(`name: typo
benchmark: { id: toy }
agent: { runner: openai, options: { model: m, base_ur: "http://127.0.0.1:1" } }
`)
    expect(openai.message).toContain(
      'configs/typo.yaml:3:47 agent.options.base_ur: runner "openai": unknown option. Did you mean "base_url"?',
    )

    const callable = errorOf(`name: typo
benchmark: { id: toy }
agent: { runner: callable, options: { modul: ./a.ts } }
`)
    expect(callable.message).toContain(
      'agent.options.modul: runner "callable": unknown option. Did you mean "module"?',
    )
  })

  it('the options of evaluators, policy checkers and benchmarks are located the same way', () => {
    const e = errorOf(`name: typo
benchmark: { id: toy, options: { split: dev } }
agent: { runner: mock-scripted }
evaluators:
  - { id: contains, options: { case_insensitve: true } }
policy:
  - { id: cost-ceiling, options: { max_usd: lots } }
`)
    expect(e.findings.map((f) => `${f.line}:${f.col} ${f.path}: ${f.message}`)).toEqual([
      '2:34 benchmark.options.split: benchmark "toy": unknown option (it takes no options)',
      '5:32 evaluators[0].options.case_insensitve: evaluator "contains": unknown option. Did you mean "case_insensitive"?',
      expect.stringMatching(/^7:36 policy\[0\]\.options\.max_usd: policy checker "cost-ceiling": .*number/),
    ])
  })

  it('an option holding a ${VAR} reference is judged after expansion, not as written', () => {
    const text = `name: refs
benchmark: { id: toy }
agent: { runner: anthropic, options: { model: m, base_url: "\${AEO_GATEWAY}" } }
`
    expect(parseRunConfig(text, 'configs/refs.yaml', builtinRegistry()).config.agent.options).toEqual({
      model: 'm',
      base_url: '${AEO_GATEWAY}',
    })
  })
})
