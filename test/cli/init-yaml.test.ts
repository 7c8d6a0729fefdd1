// `agentevalops init --yaml <runner>`: the RunConfig it writes loads against the built-in adapters, and one trial of
// it runs as written (the anthropic one against the fake Messages API).
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { builtinRegistry } from '../../plugin/builtin-adapters.ts'
import { loadRunConfig } from '../../src/config/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { MemoryTraceStore } from '../../src/stores/index.ts'
import { tempDir } from '../bundles/fixtures.ts'
import { FakeMessagesServer, textReply } from '../support/fake-messages-server.ts'
import { FakeOpenAIServer } from '../support/fake-openai-server.ts'
import { runCli } from './helpers.ts'

const MODULE_PACKAGE = `${JSON.stringify({ name: 'app', version: '1.0.0', type: 'module' }, null, 2)}\n`

let project: Awaited<ReturnType<typeof tempDir>>
let server: FakeMessagesServer | undefined
let openai: FakeOpenAIServer | undefined
beforeEach(async () => {
  project = await tempDir('aeo-init-yaml-')
  await writeFile(join(project.path, 'package.json'), MODULE_PACKAGE)
  server = undefined
  openai = undefined
})
afterEach(async () => {
  vi.unstubAllEnvs()
  await server?.close()
  await openai?.close()
  await project.remove()
})

async function runScaffold() {
  const file = join(project.path, 'configs', 'agent.yaml')
  const registry = builtinRegistry()
  const { config } = await loadRunConfig(file, registry)
  const context = { baseDir: dirname(file) }
  const benchmark = registry.create('benchmark', config.benchmark.id, config.benchmark.options, context)
  const [task] = await benchmark.listTasks()
  return runTrial({
    runId: 'init-yaml',
    benchmark: await benchmark.info(),
    task: task!,
    trial: 0,
    runner: registry.create('runner', config.agent.runner, config.agent.options, context),
    evaluators: config.evaluators.map((e) => registry.create('evaluator', e.id, e.options, context)),
    limits: config.agent.resourceLimits,
    traceStore: new MemoryTraceStore(),
  })
}

describe('agentevalops init --yaml <runner>', () => {
  it.each([
    ['callable', ['configs/agent.yaml', 'configs/agent-tasks.yaml', 'configs/agent.ts']],
    ['command', ['configs/agent.yaml', 'configs/agent-tasks.yaml', 'configs/agent.mjs']],
    ['anthropic', ['configs/agent.yaml', 'configs/agent-tasks.yaml']],
    ['openai', ['configs/agent.yaml', 'configs/agent-tasks.yaml']],
  ])('%s: writes a config that loads and runs a trial that passes', async (runner, files) => {
    const { code, lines, stderr } = await runCli('init', '--dir', project.path, '--yaml', runner)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    for (const file of files) expect(lines).toContain(`  write   ${file}`)
    expect(lines.some((l) => l.includes('npx agentevalops run configs/agent.yaml'))).toBe(true)
    if (runner === 'anthropic') {
      server = await FakeMessagesServer.start({ apiKey: 'sk-ant-init' })
      server.enqueue(textReply('Paris'))
      vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-init')
      vi.stubEnv('ANTHROPIC_BASE_URL', server.url)
    }
    if (runner === 'openai') {
      openai = await FakeOpenAIServer.start()
      openai.enqueue({ text: 'Paris' })
      vi.stubEnv('OPENAI_API_KEY', 'sk-openai-init')
      vi.stubEnv('OPENAI_BASE_URL', openai.url)
    }
    const { record } = await runScaffold()
    expect(record.outcome, JSON.stringify(record.result?.error)).toBe('passed')
    expect(record.scores.map((s) => [s.evaluatorId, s.passed])).toEqual([['contains', true]])
  })

  it('an unknown runner is a usage error with "did you mean", and writes nothing', async () => {
    const { code, stderr } = await runCli('init', '--dir', project.path, '--yaml', 'comand')
    expect(code).toBe(2)
    expect(stderr).toContain('init --yaml: unknown runner "comand" (did you mean "command"?)')
    expect(existsSync(join(project.path, 'configs'))).toBe(false)
    expect(existsSync(join(project.path, 'evals'))).toBe(false)
  })
})
