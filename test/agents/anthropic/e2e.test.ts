// anthropicRunner in a real `vitest run` of a throwaway project: its eval file starts the fake Messages API at top
// level, the key is a canary in ANTHROPIC_API_KEY, and a server error and a tool both echo it. Every file of the
// bundle must be free of it.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
  type VitestResult,
} from '../../e2e/helpers.ts'

const CANARY = 'sk-ant-CANARY-e2e-91c4f7a2d8b6e3f05a'

const EVAL_FILE = `
import { afterAll } from 'vitest'
import { anthropicRunner } from ${repoImport('src/agents/anthropic/index.ts')}
import { defineTask, type BenchmarkAdapter } from ${repoImport('src/core/index.ts')}
import { matchesExpected } from ${repoImport('src/evaluators/index.ts')}
import { evalBenchmark } from ${repoImport('plugin/index.ts')}
import {
  errorReply,
  FakeMessagesServer,
  messageReply,
  textReply,
  toolUseBlock,
  type RecordedRequest,
} from ${repoImport('test/support/fake-messages-server.ts')}

const KEY = process.env.ANTHROPIC_API_KEY ?? ''
const ANSWERS: Record<string, string> = { 'Capital of France?': 'Paris', 'What is 2+2?': '4' }
const limited = new Set<string>()

// The fake model: the first request of each task is rate-limited by a proxy that echoes the key; then it asks the
// lookup tool, then answers with what the tool said.
function model(request: RecordedRequest) {
  const messages = (request.body as { messages: { content: unknown }[] }).messages
  const prompt = messages[0]!.content as string
  if (!limited.has(prompt)) {
    limited.add(prompt)
    return errorReply(429, 'rate_limit_error', 'slow down, key ' + KEY, { 'retry-after': '0' })
  }
  const last = messages[messages.length - 1]!.content
  if (typeof last === 'string') {
    return messageReply({
      content: [toolUseBlock('lookup', { q: prompt }, 'toolu_' + request.index)],
      usage: { input_tokens: 120, output_tokens: 30 },
    })
  }
  const result = (last as { type: string; content?: string }[]).find((b) => b.type === 'tool_result')
  const answer = (JSON.parse(result?.content ?? '{}') as { answer?: string }).answer ?? '?'
  return textReply(answer, { input_tokens: 200, output_tokens: 5 })
}

const server = await FakeMessagesServer.start({ apiKey: KEY, responder: model })
afterAll(() => server.close())

const lookup = { name: 'lookup', description: 'Looks the answer up.', inputSchema: { type: 'object' } }
const tasks = [
  defineTask({ id: 'capital', benchmark: 'anthropic-e2e', prompt: 'Capital of France?', expected: 'Paris', tools: [lookup] }),
  defineTask({ id: 'sum', benchmark: 'anthropic-e2e', prompt: 'What is 2+2?', expected: '4', tools: [lookup] }),
]
const benchmark: BenchmarkAdapter = {
  id: 'anthropic-e2e',
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: 'anthropic-e2e', version: '1', datasetChecksum: 'e2e' }),
}

evalBenchmark({
  benchmark,
  runner: anthropicRunner({
    model: 'claude-haiku-4-5',
    baseURL: server.url,
    requestsPerMinute: 100,
    retry: { baseDelayMs: 1 },
    tools: {
      // Careless on purpose: it hands the whole environment's key back along with its answer.
      lookup: (input) => ({ answer: ANSWERS[(input as { q: string }).q] ?? '?', debug: 'key=' + KEY }),
    },
  }),
  evaluators: [matchesExpected()],
  limits: { maxTurns: 5, maxWallSeconds: 30 },
})
`

/** Every file under `dir`, recursively. */
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

let project: TempProject
let run: Promise<VitestResult>

beforeAll(async () => {
  project = await createTempProject({ 'evals/anthropic.eval.ts': EVAL_FILE })
  run = runVitest(['run', '--project', 'evals'], {
    cwd: project.root,
    runsDir: project.runsDir,
    // Recording off: every call goes to the fake server, whatever recordings the project has (it has none).
    env: { ANTHROPIC_API_KEY: CANARY, AGENTEVALOPS_RECORD: 'off' },
    timeoutMs: 20_000,
  })
  run.catch(() => {}) // awaited by the test; this only keeps an early failure from being "unhandled"
})

afterAll(async () => {
  await run?.catch(() => {})
  await project?.remove()
}, 30_000)

describe('anthropicRunner end to end', { timeout: 25_000 }, () => {
  it('runs two tasks through the fake API into a valid bundle that holds no trace of the key', async () => {
    const result = await run
    expect(result.code, tail(result.output)).toBe(0)
    const dirs = await bundleDirs(project.runsDir)
    expect(dirs).toHaveLength(1)
    const bundle = dirs[0]!
    const validated = await validateWithCli(bundle)
    expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)

    const scores = await readScores(bundle)
    const events = await readBundleEvents(bundle)
    for (const id of ['capital', 'sum']) {
      const record = trialOf(scores, id)
      expect(record.outcome).toBe('passed')
      expect(record.runner).toMatchObject({ name: 'anthropic:claude-haiku-4-5', kind: 'anthropic' })
      // 429 (traced, not a turn), tool call, answer.
      expect(
        eventsOf(events, id).map((e) => [e.kind, e.kind === 'agent.model_call' ? e.payload.status : '']),
      ).toEqual([
        ['agent.model_call', 'error'],
        ['agent.model_call', 'ok'],
        ['agent.tool_call', ''],
        ['agent.tool_result', ''],
        ['agent.model_call', 'ok'],
        ['agent.final_answer', ''],
        ['agent.terminal', ''],
        ['evaluator.score', ''],
      ])
      expect(record.usage).toMatchObject({ turns: 2, tokens: 355 })
      expect(record.usage.costUsd).toBeCloseTo((320 * 1 + 35 * 5) / 1e6, 12)
    }

    const files = await filesUnder(bundle)
    expect(files.length).toBeGreaterThan(3)
    const leaks: string[] = []
    let redactions = 0
    for (const file of files) {
      const text = await readFile(file, 'utf8')
      if (text.includes(CANARY)) leaks.push(file)
      redactions += text.split('[redacted]').length - 1
    }
    expect(leaks).toEqual([])
    // The 429s and the tool results did carry the key: it was redacted, not absent by luck.
    expect(redactions).toBeGreaterThanOrEqual(4)
    expect(result.output).not.toContain(CANARY)
  })
})
