// `agentevalops replay` on a real bundle: an Anthropic-runner run against the fake Messages API is recorded, then
// replayed from the bundle's recordings.jsonl with no server. Unchanged, every trial MATCHes; with one tool
// returning something else, the trial DIFFERs at that tool result's step. The eval file runs two benchmarks with the
// same task ids (as evalBenchmark called twice, or two configs of one benchmark, do): their trials, traces and
// recordings stay apart.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
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
  validateWithCli,
  type TempProject,
} from './helpers.ts'

const EVAL_FILE = `
import { afterAll } from 'vitest'
import { anthropicRunner } from ${repoImport('src/agents/index.ts')}
import { defineTask, type BenchmarkAdapter } from ${repoImport('src/core/index.ts')}
import { matchesExpected } from ${repoImport('src/evaluators/index.ts')}
import { recordModeFromEnv } from ${repoImport('src/recording/index.ts')}
import { evalBenchmark } from ${repoImport('plugin/index.ts')}
import { FakeMessagesServer, messageReply, textReply, toolUseBlock, type RecordedRequest } from ${repoImport('test/support/fake-messages-server.ts')}

// The fake model asks the lookup tool, then answers with what it said.
function model(request: RecordedRequest) {
  const messages = (request.body as { messages: { content: unknown }[] }).messages
  const last = messages[messages.length - 1]!.content
  if (typeof last === 'string') {
    return messageReply({ content: [toolUseBlock('lookup', { q: last }, 'toolu_1')], usage: { input_tokens: 100, output_tokens: 20 } })
  }
  const result = (last as { type: string; content?: string }[]).find((b) => b.type === 'tool_result')
  return textReply(JSON.parse(result?.content ?? '{}').answer ?? '?', { input_tokens: 150, output_tokens: 5 })
}

// A replay needs no server: a call that slipped past the recordings would fail on the closed port.
const server = recordModeFromEnv() === 'replay' ? undefined : await FakeMessagesServer.start({ responder: model })
afterAll(() => server?.close())

const lookup = { name: 'lookup', description: 'Looks it up.', inputSchema: { type: 'object' } }
const tasks = [
  defineTask({ id: 'capital', benchmark: 'replay-e2e', prompt: 'Capital of France?', expected: 'Paris', tools: [lookup] }),
  defineTask({ id: 'river', benchmark: 'replay-e2e', prompt: 'River of Paris?', expected: 'Seine', tools: [lookup] }),
]
const ANSWERS: Record<string, string> = { 'Capital of France?': 'Paris', 'River of Paris?': 'Seine' }
for (const id of ['replay-e2e', 'replay-e2e@again']) {
  const benchmark: BenchmarkAdapter = {
    id,
    version: '1',
    listTasks: () => tasks,
    info: () => ({ id, version: '1', datasetChecksum: 'e2e' }),
    // Keeps the answer as an artifact of the trial, which a resumed run's bundle must carry over.
    grade: async (view, ctx) => {
      await ctx.saveArtifact('answer.txt', String(view.result.finalAnswer))
      return { score: 1, passed: true, explanation: 'kept the answer' }
    },
  }
  evalBenchmark({
    benchmark,
    runner: anthropicRunner({
      model: 'claude-haiku-4-5',
      baseURL: server?.url ?? 'http://127.0.0.1:9',
      tools: {
        // A test can change what the second benchmark's tool says for the river, as a changed tool would.
        lookup: (input) => {
          const q = (input as { q: string }).q
          const changed = id === 'replay-e2e@again' && q.startsWith('River') ? process.env.RIVER_ANSWER : undefined
          return { answer: changed ?? ANSWERS[q] }
        },
      },
    }),
    evaluators: [matchesExpected()],
    gate: { minPassRate: 0 },
  })
}
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
  project = await createTempProject({ 'evals/replay.eval.ts': EVAL_FILE })
  const result = await runVitest(['run', '--project', 'evals'], {
    cwd: project.root,
    runsDir: project.runsDir,
    env: { ANTHROPIC_API_KEY: 'test-key', AGENTEVALOPS_RECORD: 'record' },
    timeoutMs: 25_000,
  })
  expect(result.code, tail(result.output)).toBe(0)
  bundle = (await bundleDirs(project.runsDir))[0]!
}, 30_000)

afterAll(async () => {
  vi.unstubAllEnvs()
  await project?.remove()
})

describe('agentevalops replay', { timeout: 30_000 }, () => {
  it('reports MATCH for every trial of an unchanged agent, with no server', async () => {
    expect((await readScores(bundle)).trials.map((t) => [t.benchmark.id, t.taskId, t.outcome])).toEqual([
      ['replay-e2e', 'capital', 'passed'],
      ['replay-e2e', 'river', 'passed'],
      ['replay-e2e@again', 'capital', 'passed'],
      ['replay-e2e@again', 'river', 'passed'],
    ])
    // Identical requests of the two benchmarks, recorded once for each.
    const recordings = (await readFile(join(bundle, 'recordings.jsonl'), 'utf8')).trim().split('\n')
    const keys = recordings.map((l) => JSON.parse(l) as { benchmark: string; taskId: string; key: string })
    expect(keys.filter((k) => k.benchmark === 'replay-e2e').map((k) => [k.taskId, k.key])).toEqual(
      keys.filter((k) => k.benchmark === 'replay-e2e@again').map((k) => [k.taskId, k.key]),
    )
    expect(keys).toHaveLength(8)
    vi.stubEnv('ANTHROPIC_API_KEY', 'test-key')
    const { io, out, err } = cli()
    const code = await main(['replay', bundle, '--cwd', project.root], io)
    expect(code, [...out, ...err].join('\n')).toBe(0)
    expect(out).toEqual([
      'MATCH         replay-e2e/capital #0',
      'MATCH         replay-e2e/river #0',
      'MATCH         replay-e2e@again/capital #0',
      'MATCH         replay-e2e@again/river #0',
      'replay: 4 MATCH, 0 DIFFER, 0 CODE_CHANGED',
    ])
  })

  it('reports DIFFER at the step of the tool result that changed, and exits 1', async () => {
    const river = eventsOf(await readBundleEvents(bundle), 'river')
    const toolResult = river.find(
      (e) => e.benchmark === 'replay-e2e@again' && e.kind === 'agent.tool_result',
    )!
    vi.stubEnv('ANTHROPIC_API_KEY', 'test-key')
    vi.stubEnv('RIVER_ANSWER', 'Thames')
    const { io, out, err } = cli()
    const code = await main(['replay', bundle, '--cwd', project.root], io)
    expect(code, [...out, ...err].join('\n')).toBe(1)
    expect(out.slice(0, 3)).toEqual([
      'MATCH         replay-e2e/capital #0',
      'MATCH         replay-e2e/river #0',
      'MATCH         replay-e2e@again/capital #0',
    ])
    expect(out[3]).toMatch(
      new RegExp(`^DIFFER +replay-e2e@again/river #0: step ${toolResult.step}: agent\\.tool_result differs`),
    )
    expect(out[4]).toBe('replay: 3 MATCH, 1 DIFFER, 0 CODE_CHANGED')
  })

  it('replays a resumed run’s bundle, which carries the recordings and artifacts of the trials it took over', async () => {
    const runsDir = join(project.root, 'resumed-runs')
    const result = await runVitest(['run', '--project', 'evals'], {
      cwd: project.root,
      runsDir,
      env: { ANTHROPIC_API_KEY: 'test-key', AGENTEVALOPS_RECORD: 'record', AGENTEVALOPS_RESUME: bundle },
      timeoutMs: 25_000,
    })
    expect(result.code, tail(result.output)).toBe(0)
    const [resumed] = await bundleDirs(runsDir)
    const trials = (await readScores(resumed!)).trials
    expect(trials.map((t) => t.reusedFrom?.mode)).toEqual(['record', 'record', 'record', 'record'])
    const lines = async (dir: string) =>
      (await readFile(join(dir, 'recordings.jsonl'), 'utf8')).trim().split('\n').sort()
    expect(await lines(resumed!)).toEqual(await lines(bundle))
    for (const t of trials) {
      const artifact = t.result!.artifacts.find((a) => a.name === 'answer.txt')!
      expect(await readFile(join(resumed!, artifact.path), 'utf8')).toBe(t.result!.finalAnswer)
    }
    const validation = await validateWithCli(resumed!)
    expect(validation.code, `${validation.stdout}\n${validation.stderr}`).toBe(0)

    vi.unstubAllEnvs()
    vi.stubEnv('ANTHROPIC_API_KEY', 'test-key')
    const { io, out, err } = cli()
    const code = await main(['replay', resumed!, '--cwd', project.root], io)
    expect(code, [...out, ...err].join('\n')).toBe(0)
    expect(out.at(-1)).toBe('replay: 4 MATCH, 0 DIFFER, 0 CODE_CHANGED')
  })
})
