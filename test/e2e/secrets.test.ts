// A canary secret in the environment, echoed by the agent in a tool call, its tool result and its final answer,
// and a key-shaped string in its output: neither appears in any file of the bundle (nor in Vitest's output), and
// the secret-leak policy reports each event that carried one, citing its step. A token used as an object key and a
// configured PIN passed as a number are redacted the same way: in the bundle and in the run's staging files.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  EVAL_IMPORTS,
  bundleDirs,
  createTempProject,
  readScores,
  repoImport,
  runVitest,
  tail,
  validateWithCli,
  type TempProject,
} from './helpers.ts'

const CANARY = 'canary-7f3a9c2e1b5d'
const KEY_SHAPED = 'sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm'

const evalFile = `${EVAL_IMPORTS}
import { secretLeak } from ${repoImport('src/policy/index.ts')}

const secret = process.env.CANARY_API_KEY ?? 'missing'
const tasks: TaskSpec[] = [defineTask({ id: 'leaky', benchmark: 'secrets', prompt: 'Call the API.', expected: 'done' })]
const benchmark: BenchmarkAdapter = {
  id: 'secrets',
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: 'secrets', version: '1', datasetChecksum: 'e2e' }),
}
evalBenchmark({
  benchmark,
  gate: { minPassRate: 0 },
  runner: mockRunner({
    scripts: {
      leaky: {
        steps: [
          { kind: 'plan', text: 'use the key' },
          { kind: 'tool_call', tool: 'http', args: { url: 'https://api.example', key: secret } },
          { kind: 'tool_result', tool: 'http', result: 'echo: ' + secret + ' and ${KEY_SHAPED}' },
          { kind: 'final_answer', answer: 'done, the key was ' + secret },
        ],
      },
    },
  }),
  evaluators: [matchesExpected()],
  policy: [secretLeak()],
})
`

const TOKEN = 'tok-keyed-9d4e2a7c61f0'
const PIN = '4821'
// The PIN as a JSON number after a field name, wherever JSON is written or quoted (traces, spans, HTML).
const RAW_PIN = /pin(?:\\?"|&quot;|&#34;|\\u0022)?\s*:\s*4821(?![\d.])/

// Two benchmarks, run one after the other (Vitest runs a file's describe blocks in order): the first calls a tool
// with the token as a key and the PIN as a number, the second reads every staging file the run has written so far
// (the first trial's trace and record among them) and answers with what it found, so staging is checked mid-run.
const keyedEvalFile = `${EVAL_IMPORTS}
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { callableRunner } from ${repoImport('src/agents/index.ts')}
import { secretLeak } from ${repoImport('src/policy/index.ts')}

const token = process.env.LOOKUP_API_KEY ?? 'missing'
const pin = Number(process.env.APP_PIN ?? '0')
const rawPin = ${RAW_PIN.toString()}
const adapter = (id: string, taskId: string): BenchmarkAdapter => {
  const tasks: TaskSpec[] = [defineTask({ id: taskId, benchmark: id, prompt: 'Look it up.', expected: 'found' })]
  return { id, version: '1', listTasks: () => tasks, info: () => ({ id, version: '1', datasetChecksum: 'e2e' }) }
}

evalBenchmark({
  benchmark: adapter('keyed', 'lookup'),
  gate: { minPassRate: 0 },
  runner: callableRunner(async (_input, ctx) => {
    await ctx.toolCall('lookup', { [token]: 1, pin }, (args) => ({ found: true, echo: args }))
    return 'found'
  }),
  evaluators: [matchesExpected()],
  policy: [secretLeak()],
})

evalBenchmark({
  benchmark: adapter('staging', 'scan'),
  gate: { minPassRate: 0 },
  runner: callableRunner(async () => {
    const staging = join(process.env.AGENTEVALOPS_RUNS_DIR ?? 'missing', '.staging')
    const entries = await readdir(staging, { recursive: true, withFileTypes: true })
    const report = { files: 0, sawLookup: false, leaked: [] as string[] }
    for (const entry of entries.filter((e) => e.isFile())) {
      const text = await readFile(join(entry.parentPath, entry.name), 'utf8')
      report.files++
      if (text.includes('"tool":"lookup"')) report.sawLookup = true
      if (text.includes(token) || rawPin.test(text)) report.leaked.push(entry.name)
    }
    return JSON.stringify(report)
  }),
  evaluators: [],
})
`

let project: TempProject
let keyedProject: TempProject
beforeAll(async () => {
  project = await createTempProject({ 'evals/secrets.eval.ts': evalFile })
  keyedProject = await createTempProject({ 'evals/keyed.eval.ts': keyedEvalFile })
})
afterAll(async () => {
  await project?.remove()
  await keyedProject?.remove()
})

async function allFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
}

describe('secrets never reach the bundle', { timeout: 60_000 }, () => {
  it('redacts a canary secret and a key shape everywhere, and the leak policy cites each step', async () => {
    const result = await runVitest(['run', '--project', 'evals'], {
      cwd: project.root,
      runsDir: project.runsDir,
      env: { CANARY_API_KEY: CANARY },
      timeoutMs: 40_000,
    })
    const [dir] = await bundleDirs(project.runsDir)
    expect(dir, tail(result.output)).toBeDefined()
    expect((await validateWithCli(dir!)).code).toBe(0)

    const files = await allFiles(dir!)
    expect(files.length).toBeGreaterThan(5)
    for (const file of files) {
      const text = await readFile(file, 'utf8')
      expect(text, file).not.toContain(CANARY)
      expect(text, file).not.toContain(KEY_SHAPED)
    }
    expect(result.output).not.toContain(CANARY)
    const traces = await readFile(join(dir!, 'traces.jsonl'), 'utf8')
    expect(traces).toContain('[REDACTED:CANARY_API_KEY]')
    expect(traces).toContain('[REDACTED:ANTHROPIC_KEY]')

    const [trial] = (await readScores(dir!)).trials
    expect(trial!.outcome).toBe('policy_violation')
    const leak = trial!.verdicts.find((v) => v.checkerId === 'secret-leak')!
    expect(leak.verdict).toBe('FAIL')
    expect(leak.findings.map((f) => [f.citations, f.message])).toEqual([
      [[1], 'agent.tool_call at step 1 carried CANARY_API_KEY (redacted in the trace)'],
      [[2], 'agent.tool_result at step 2 carried CANARY_API_KEY, ANTHROPIC_KEY (redacted in the trace)'],
      [[3], 'agent.final_answer at step 3 carried CANARY_API_KEY (redacted in the trace)'],
    ])
  })

  it('redacts a token used as an object key and a configured PIN passed as a number, in the bundle and staging', async () => {
    const result = await runVitest(['run', '--project', 'evals'], {
      cwd: keyedProject.root,
      runsDir: keyedProject.runsDir,
      env: {
        LOOKUP_API_KEY: TOKEN,
        APP_PIN: PIN,
        AGENTEVALOPS_SECRETS: 'APP_PIN',
        // Tool args and results on the spans too (the OTLP export draws the same spans).
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      },
      timeoutMs: 40_000,
    })
    const [dir] = await bundleDirs(keyedProject.runsDir)
    expect(dir, tail(result.output)).toBeDefined()
    expect((await validateWithCli(dir!)).code).toBe(0)

    const files = await allFiles(dir!)
    expect(files.map((f) => f.slice(dir!.length + 1))).toEqual(
      expect.arrayContaining(['traces.jsonl', 'spans.jsonl', 'report.html']),
    )
    for (const file of files) {
      const text = await readFile(file, 'utf8')
      expect.soft(text, file).not.toContain(TOKEN)
      expect.soft(text, file).not.toMatch(RAW_PIN)
    }
    expect(result.output).not.toContain(TOKEN)
    const traces = await readFile(join(dir!, 'traces.jsonl'), 'utf8')
    expect(traces).toContain('"args":{"[REDACTED:LOOKUP_API_KEY]":1,"pin":"[REDACTED:APP_PIN]"}')
    expect(traces).toContain('"echo":{"[REDACTED:LOOKUP_API_KEY]":1,"pin":"[REDACTED:APP_PIN]"}')
    const spans = await readFile(join(dir!, 'spans.jsonl'), 'utf8')
    expect(spans).toContain('{\\"[REDACTED:LOOKUP_API_KEY]\\":1,\\"pin\\":\\"[REDACTED:APP_PIN]\\"}')

    const { trials } = await readScores(dir!)
    const lookup = trials.find((t) => t.taskId === 'lookup')!
    expect(lookup.outcome).toBe('policy_violation')
    const leak = lookup.verdicts.find((v) => v.checkerId === 'secret-leak')!
    expect(leak.findings.map((f) => [f.citations, f.message])).toEqual([
      [[0], 'agent.tool_call at step 0 carried LOOKUP_API_KEY, APP_PIN (redacted in the trace)'],
      [[1], 'agent.tool_result at step 1 carried LOOKUP_API_KEY, APP_PIN (redacted in the trace)'],
    ])

    // What the second benchmark's agent found in staging while the run was still going.
    const scan = trials.find((t) => t.taskId === 'scan')!
    const seen = JSON.parse(scan.result!.finalAnswer!) as {
      files: number
      sawLookup: boolean
      leaked: string[]
    }
    expect(seen.files).toBeGreaterThan(1)
    expect(seen.sawLookup).toBe(true)
    expect(seen.leaked).toEqual([])
  })
})
