// `agentevalops replay` on a bundle of examples/ai-sdk-agent: the eval runs in a child Vitest, recorded against a
// fake Chat Completions server on 127.0.0.1, then replayed from the bundle's recordings.jsonl with the server
// stopped. Unchanged, the trial MATCHes; with one tool answering otherwise, it DIFFERs at that tool's result. And
// the example's own eval file runs offline from its committed recordings, as CI runs it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { main } from '../../src/cli/main.ts'
import type { CliIO } from '../../src/cli/io.ts'
import {
  bundleDirs,
  createTempProject,
  eventsOf,
  readBundleEvents,
  readScores,
  repoImport,
  runVitest,
  tail,
  tempDir,
  type TempProject,
} from '../e2e/helpers.ts'
import { FakeOpenAIServer } from '../support/fake-openai-server.ts'

const EVAL_FILE = `
import { tool } from 'ai'
import { landmarkAgent, tools } from ${repoImport('examples/ai-sdk-agent/agent.ts')}
import { landmarkFeet } from ${repoImport('examples/ai-sdk-agent/benchmark.ts')}
import { matchesExpected } from ${repoImport('src/evaluators/index.ts')}
import { evalBenchmark } from ${repoImport('plugin/index.ts')}

// A test can change what the conversion tool says, as a changed tool would.
const factor = process.env.FEET_PER_METRE
const agentTools =
  factor === undefined
    ? tools
    : {
        ...tools,
        metresToFeet: tool({
          ...tools.metresToFeet,
          execute: ({ metres }: { metres: number }) => ({ feet: Math.round(metres * Number(factor)) }),
        }),
      }

evalBenchmark({
  benchmark: landmarkFeet,
  runner: landmarkAgent(agentTools),
  evaluators: [matchesExpected()],
  limits: { maxTurns: 6 },
  gate: { minPassRate: 0 },
})
`

let project: TempProject
let bundle: string

function cli() {
  const out: string[] = []
  const err: string[] = []
  const io: CliIO = { out: (l) => void out.push(l), err: (l) => void err.push(l) }
  return { io, out, err }
}

beforeAll(async () => {
  project = await createTempProject({ 'evals/landmarks.eval.ts': EVAL_FILE })
  const server = await FakeOpenAIServer.start()
  try {
    server.enqueue(
      { toolCalls: [{ id: 'call_height', name: 'lookupHeight', arguments: { landmark: 'Eiffel Tower' } }] },
      { toolCalls: [{ id: 'call_feet', name: 'metresToFeet', arguments: { metres: 330 } }] },
      { text: '1083' },
    )
    const result = await runVitest(['run', '--project', 'evals'], {
      cwd: project.root,
      runsDir: project.runsDir,
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-test-replay', AGENTEVALOPS_RECORD: 'record' },
      timeoutMs: 40_000,
    })
    expect(result.code, tail(result.output)).toBe(0)
    expect(server.problems).toEqual([])
    expect(server.requests).toHaveLength(3)
  } finally {
    // Everything after this runs with no server at all.
    await server.close()
  }
  bundle = (await bundleDirs(project.runsDir))[0]!
}, 50_000)

afterAll(async () => {
  vi.unstubAllEnvs()
  await project?.remove()
})

describe('agentevalops replay of the AI SDK example', { timeout: 50_000 }, () => {
  it('reports MATCH for the unchanged agent, with the server stopped and no key', async () => {
    expect((await readScores(bundle)).trials.map((t) => [t.taskId, t.outcome])).toEqual([
      ['eiffel-feet', 'passed'],
    ])
    vi.stubEnv('OPENAI_API_KEY', undefined)
    const { io, out, err } = cli()
    const code = await main(['replay', bundle, '--cwd', project.root], io)
    expect(code, [...out, ...err].join('\n')).toBe(0)
    expect(out).toEqual([
      'MATCH         landmark-feet/eiffel-feet #0',
      'replay: 1 MATCH, 0 DIFFER, 0 CODE_CHANGED',
    ])
  })

  it('reports DIFFER at the step of the tool result that changed, and exits 1', async () => {
    const events = eventsOf(await readBundleEvents(bundle), 'eiffel-feet')
    const feet = events.find(
      (e) => e.kind === 'agent.tool_result' && (e.payload as { tool: string }).tool === 'metresToFeet',
    )!
    expect(feet.payload).toMatchObject({ result: { feet: 1083 } })
    vi.stubEnv('OPENAI_API_KEY', undefined)
    vi.stubEnv('FEET_PER_METRE', '3')
    const { io, out, err } = cli()
    const code = await main(['replay', bundle, '--cwd', project.root], io)
    expect(code, [...out, ...err].join('\n')).toBe(1)
    expect(out[0]).toMatch(
      new RegExp(`^DIFFER +landmark-feet/eiffel-feet #0: step ${feet.step}: agent\\.tool_result differs`),
    )
    expect(out[1]).toBe('replay: 0 MATCH, 1 DIFFER, 0 CODE_CHANGED')
  })
})

describe('examples/ai-sdk-agent/agent.eval.ts', () => {
  it('runs offline from its committed recordings and passes, as CI runs it', async () => {
    const runs = await tempDir('aeo-ai-sdk-example-')
    try {
      const result = await runVitest(['run', '--config', 'examples/ai-sdk-agent/vitest.config.ts'], {
        runsDir: runs.path,
        // Nowhere to go: a call the recordings did not answer would fail on the closed port.
        env: { AGENTEVALOPS_RECORD: 'replay', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
        timeoutMs: 40_000,
      })
      expect(result.code, tail(result.output)).toBe(0)
      const [dir] = await bundleDirs(runs.path)
      const trials = (await readScores(dir!)).trials
      expect(trials.map((t) => [t.taskId, t.outcome, t.result?.finalAnswer])).toEqual([
        ['eiffel-feet', 'passed', '1083'],
      ])
      expect(trials[0]!.scores.map((s) => [s.evaluatorId, s.passed])).toEqual([
        ['matches-expected', true],
        ['trace-quality', true],
      ])
    } finally {
      await runs.remove()
    }
  }, 50_000)
})
