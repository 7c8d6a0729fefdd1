// openaiRunner in a real `vitest run` of a throwaway project, twice: recorded against the fake Chat Completions
// server its eval file starts (the key a canary in OPENAI_API_KEY, echoed by a server error and a tool), then
// replayed from `__recordings__/` with no server at all. The replay's trace is the recording's, and no file of
// either bundle or of the recordings holds the key.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TraceEvent } from '../../../src/core/index.ts'
import {
  bundleDirs,
  createTempProject,
  eventsOf,
  readBundleEvents,
  readScores,
  repoImport,
  runVitest,
  tail,
  trialOf,
  validateWithCli,
  type TempProject,
} from '../../e2e/helpers.ts'

const CANARY = 'sk-proj-CANARY-e2e-7d3a91c5e8b24f06'

const EVAL_FILE = `
import { afterAll } from 'vitest'
import { openaiRunner } from ${repoImport('src/agents/openai/index.ts')}
import { defineTask, type BenchmarkAdapter } from ${repoImport('src/core/index.ts')}
import { matchesExpected } from ${repoImport('src/evaluators/index.ts')}
import { evalBenchmark } from ${repoImport('plugin/index.ts')}
import { chatErrors, FakeOpenAIServer } from ${repoImport('test/support/fake-openai-server.ts')}

const KEY = process.env.OPENAI_API_KEY ?? ''
// On replay no server runs: a request would fail, so a passing replay made none.
let baseURL = 'http://127.0.0.1:9/v1'
if (process.env.AGENTEVALOPS_RECORD !== 'replay') {
  const server = await FakeOpenAIServer.start()
  afterAll(() => server.close())
  baseURL = server.url
  server.enqueue(
    chatErrors.serverError('upstream rejected key ' + KEY),
    { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }], usage: { prompt_tokens: 120, completion_tokens: 30 } },
    { toolCalls: [{ id: 'call_2', name: 'convert', arguments: { celsius: 18 } }], usage: { prompt_tokens: 200, completion_tokens: 20 } },
    { text: '64.4', usage: { prompt_tokens: 260, completion_tokens: 3 } },
  )
}

const tools = [
  { name: 'get_weather', description: 'Weather in Celsius.', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
  { name: 'convert', description: 'Celsius to Fahrenheit.', inputSchema: { type: 'object', properties: { celsius: { type: 'number' } } } },
]
const tasks = [defineTask({ id: 'paris', benchmark: 'openai-e2e', prompt: 'Paris, in Fahrenheit?', expected: '64.4', tools })]
const benchmark: BenchmarkAdapter = {
  id: 'openai-e2e',
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: 'openai-e2e', version: '1', datasetChecksum: 'e2e' }),
}

evalBenchmark({
  benchmark,
  runner: openaiRunner({
    model: 'gpt-4.1-mini',
    baseURL,
    retry: { baseDelayMs: 1 },
    tools: {
      // Careless on purpose: it hands the key back along with its answer.
      get_weather: (input) => ({ city: (input as { city: string }).city, celsius: 18, debug: 'key=' + KEY }),
      convert: (input) => ({ fahrenheit: ((input as { celsius: number }).celsius * 9) / 5 + 32 }),
    },
  }),
  evaluators: [matchesExpected()],
  limits: { maxTurns: 5, maxWallSeconds: 30 },
})
`

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true })
  const files: string[] = []
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) files.push(...(await filesUnder(path)))
    else files.push(path)
  }
  return files
}

/** What a replay must repeat: each agent event's kind, payload (but the trial's wall time) and deltas. */
const behaviour = (events: readonly TraceEvent[]) =>
  events
    .filter((e) => e.kind.startsWith('agent.'))
    .map((e) => {
      const { wallSeconds: _wall, ...payload } = e.payload as Record<string, unknown>
      return [e.kind, payload, e.tokensDelta, e.costDeltaUsd]
    })

let project: TempProject

beforeAll(async () => {
  project = await createTempProject({ 'evals/openai.eval.ts': EVAL_FILE })
})

afterAll(async () => {
  await project?.remove()
}, 30_000)

describe('openaiRunner end to end', { timeout: 60_000 }, () => {
  it('records a run, replays it with no server into the same trace, and no file holds the key', async () => {
    const run = (mode: 'record' | 'replay') =>
      runVitest(['run', '--project', 'evals'], {
        cwd: project.root,
        runsDir: project.runsDir,
        env: { OPENAI_API_KEY: CANARY, AGENTEVALOPS_RECORD: mode },
        timeoutMs: 25_000,
      })

    const recorded = await run('record')
    expect(recorded.code, tail(recorded.output)).toBe(0)
    const [first] = await bundleDirs(project.runsDir)
    expect(first).toBeDefined()
    const replayed = await run('replay')
    expect(replayed.code, tail(replayed.output)).toBe(0)
    const second = (await bundleDirs(project.runsDir)).find((dir) => dir !== first)
    expect(second).toBeDefined()

    const trials: TraceEvent[][] = []
    for (const bundle of [first!, second!]) {
      const validated = await validateWithCli(bundle)
      expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)
      const record = trialOf(await readScores(bundle), 'paris')
      expect(record.outcome).toBe('passed')
      expect(record.runner).toMatchObject({ name: 'openai:gpt-4.1-mini', kind: 'openai' })
      trials.push(eventsOf(await readBundleEvents(bundle), 'paris'))
    }
    expect(trials[0]!.map((e) => e.kind)).toEqual([
      'agent.model_call',
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.model_call',
      'agent.tool_call',
      'agent.tool_result',
      'agent.model_call',
      'agent.final_answer',
      'agent.terminal',
      'evaluator.score',
    ])
    expect(behaviour(trials[1]!)).toEqual(behaviour(trials[0]!))

    const files = [
      ...(await filesUnder(first!)),
      ...(await filesUnder(second!)),
      ...(await filesUnder(join(project.root, 'evals', '__recordings__'))),
    ]
    const leaks: string[] = []
    let redactions = 0
    for (const file of files) {
      const text = await readFile(file, 'utf8')
      if (text.includes(CANARY)) leaks.push(file)
      redactions += text.split('[redacted]').length - 1
    }
    expect(leaks).toEqual([])
    // The 500 and the tool result did carry the key: it was redacted, not absent by luck.
    expect(redactions).toBeGreaterThanOrEqual(2)
    expect(recorded.output + replayed.output).not.toContain(CANARY)
  })
})
