import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { commandRunner, type CommandRunnerOptions } from '../../../src/agents/command/index.ts'
import { defineTask, type ResourceLimits, type TraceEvent } from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { MemoryTraceStore } from '../../../src/stores/index.ts'
import { fakeArgv, groupGoneWithin, liveGroupMembers, readPids } from './fixtures/helpers.ts'

const task = defineTask({ id: 'math/add one', benchmark: 'toy', prompt: 'What is 1+1?', expected: '2' })

let dir: string
let workspace: string
let artifactsDir: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-command-test-'))
  workspace = join(dir, 'ws')
  artifactsDir = join(dir, 'artifacts')
  await mkdir(workspace)
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

interface TrialOptions {
  limits?: ResourceLimits
  signal?: AbortSignal
  /** Default: the test's workspace, as a benchmark's prepare() would give it. */
  workdir?: string | null
}

function trial(options: Partial<CommandRunnerOptions> & { argv: readonly string[] }, t: TrialOptions = {}) {
  const runner = commandRunner({ artifactsDir, ...options })
  return runTrial({
    runId: 'r',
    benchmark: { id: 'toy', version: '1', datasetChecksum: 'c' },
    task,
    trial: 0,
    runner,
    limits: t.limits ?? {},
    signal: t.signal,
    prepare: () => (t.workdir === null ? {} : { workdir: t.workdir ?? workspace }),
    traceStore: new MemoryTraceStore(),
  })
}

/** The agent's part of the trace, without the harness's bookkeeping fields. */
function agentEvents(events: readonly TraceEvent[]) {
  return events
    .filter((e) => e.kind !== 'agent.terminal')
    .map((e) => ({ kind: e.kind, payload: e.payload, tokens: e.tokensDelta, costUsd: e.costDeltaUsd }))
}

function artifactPath(result: { artifacts: { name: string; path: string }[] } | null, name: string): string {
  const found = result?.artifacts.find((a) => a.name === name)
  if (!found) throw new Error(`no ${name} artifact`)
  return found.path
}

describe('commandRunner: generic format', () => {
  it('maps each line to its trace event, with usage and cost, and answers the last final_answer', async () => {
    const { record, result, events } = await trial({ argv: fakeArgv('generic') })
    expect(agentEvents(events)).toEqual([
      { kind: 'agent.plan', payload: { text: 'use the calculator' }, tokens: 0, costUsd: 0 },
      {
        kind: 'agent.model_call',
        payload: { model: 'claude-sonnet-4-5', inputTokens: 100, outputTokens: 20, text: 'calling it' },
        tokens: 120,
        costUsd: (100 * 3 + 20 * 15) / 1e6,
      },
      {
        kind: 'agent.tool_call',
        payload: { tool: 'calculator', args: { expr: '1+1' }, callId: 'c1' },
        tokens: 0,
        costUsd: 0,
      },
      {
        kind: 'agent.tool_result',
        payload: { tool: 'calculator', result: 2, callId: 'c1' },
        tokens: 0,
        costUsd: 0,
      },
      { kind: 'agent.observation', payload: { text: 'the calculator says 2' }, tokens: 0, costUsd: 0 },
      {
        kind: 'agent.model_call',
        payload: { model: 'local-llm', inputTokens: 10, outputTokens: 5 },
        tokens: 15,
        costUsd: 0.5,
      },
      {
        kind: 'agent.model_call',
        payload: { model: 'local-llm', inputTokens: 1, outputTokens: 1 },
        tokens: 2,
        costUsd: 0,
      },
      { kind: 'agent.final_answer', payload: { answer: '2 (asked: What is 1+1?)' }, tokens: 0, costUsd: 0 },
    ])
    expect(result).toMatchObject({
      terminatedBy: 'completed',
      success: true,
      finalAnswer: '2 (asked: What is 1+1?)',
      error: null,
      totalTokens: 137,
      turns: 3,
    })
    expect(result?.totalCostUsd).toBeCloseTo(0.5006, 9)
    expect(record.warnings).toEqual([
      expect.stringContaining('model "local-llm" is not in the price table'),
      'skipped 2 line(s) of unknown type "mystery"',
    ])
    expect(record.runner).toEqual({
      name: 'command:node',
      kind: 'command',
      config: {
        argv: fakeArgv('generic'),
        format: 'generic',
        passEnv: ['PATH', 'HOME', 'LANG', 'TMPDIR', 'TERM'],
        envNames: [],
        cwd: 'workspace',
        stdin: 'prompt',
      },
    })
  })

  it('keeps stdout and stderr in full as artifacts, outside the workspace', async () => {
    const { result } = await trial({ argv: fakeArgv('big') })
    expect(result?.artifacts.map((a) => a.name)).toEqual(['stdout', 'stderr'])
    const stdout = await readFile(artifactPath(result, 'stdout'), 'utf8')
    expect(stdout.split('\n')).toHaveLength(101)
    expect(stdout.split('\n')[99]).toBe('{"type":"plan","text":"step 099"}')
    expect(await readFile(artifactPath(result, 'stderr'), 'utf8')).toBe('e'.repeat(5000))
    expect(artifactPath(result, 'stdout').startsWith(artifactsDir)).toBe(true)
    expect(existsSync(join(workspace, '.agentevalops'))).toBe(false)
  })

  it('truncates an artifact at maxOutputBytes with a note, and still parses every line', async () => {
    const { result, events } = await trial({ argv: fakeArgv('big'), maxOutputBytes: 1000 })
    expect(events.filter((e) => e.kind === 'agent.plan')).toHaveLength(100)
    const stdout = await readFile(artifactPath(result, 'stdout'), 'utf8')
    expect(stdout).toMatch(/\n\[agentevalops: output truncated: kept the first 1000 of 3400 bytes\]\n$/)
    expect(stdout.length).toBe(1000 + stdout.slice(1000).length)
  })
})

describe('commandRunner: stream-json format', () => {
  it("maps a Claude Code run to the expected trace and reconciles with the agent's total cost", async () => {
    const { result, events, record } = await trial({ argv: fakeArgv('stream-json'), format: 'stream-json' })
    const model = 'claude-sonnet-4-5-20250929'
    const msg1 = (3 * 3 + 42 * 15 + 1200 * 3.75 + 5000 * 0.3) / 1e6
    const msg2 = (5 * 3 + 30 * 15 + 6200 * 0.3) / 1e6
    const msg3 = (4 * 3 + 8 * 15 + 6400 * 0.3) / 1e6
    const zero = { tokens: 0, costUsd: 0 }
    const actual = agentEvents(events)
    expect(actual).toEqual([
      {
        kind: 'agent.observation',
        payload: {
          text: 'session started (model claude-sonnet-4-5-20250929, 5 tool(s), permission mode bypassPermissions)',
          source: 'system.init',
          model,
          sessionId: 'sess-1',
          tools: ['Task', 'Bash', 'Read', 'Edit', 'Write'],
          permissionMode: 'bypassPermissions',
          version: '2.0.14',
        },
        ...zero,
      },
      {
        kind: 'agent.model_call',
        payload: {
          model,
          inputTokens: 3,
          outputTokens: 42,
          cacheCreationInputTokens: 1200,
          cacheReadInputTokens: 5000,
          text: 'Let me read the file.',
          messageId: 'msg_1',
        },
        tokens: 6245,
        costUsd: expect.closeTo(msg1, 12) as number,
      },
      { kind: 'agent.plan', payload: { text: 'I should read a.txt first.', source: 'thinking' }, ...zero },
      {
        kind: 'agent.tool_call',
        payload: { tool: 'Read', args: { file_path: 'a.txt' }, callId: 'toolu_1' },
        ...zero,
      },
      {
        kind: 'agent.tool_result',
        payload: { tool: 'Read', result: '     1\thello', callId: 'toolu_1' },
        ...zero,
      },
      {
        kind: 'agent.model_call',
        payload: { model, inputTokens: 5, outputTokens: 30, cacheReadInputTokens: 6200, messageId: 'msg_2' },
        tokens: 6235,
        costUsd: expect.closeTo(msg2, 12) as number,
      },
      {
        kind: 'agent.tool_call',
        payload: { tool: 'Bash', args: { command: 'echo ok' }, callId: 'toolu_2' },
        ...zero,
      },
      {
        kind: 'agent.tool_call',
        payload: { tool: 'Bash', args: { command: 'false' }, callId: 'toolu_3' },
        ...zero,
      },
      {
        kind: 'agent.tool_result',
        payload: { tool: 'Bash', result: 'ok', isError: false, callId: 'toolu_2' },
        ...zero,
      },
      {
        kind: 'agent.tool_result',
        payload: { tool: 'Bash', result: 'Exit code 1', isError: true, callId: 'toolu_3' },
        ...zero,
      },
      {
        kind: 'agent.model_call',
        payload: {
          model,
          inputTokens: 4,
          outputTokens: 8,
          cacheReadInputTokens: 6400,
          stopReason: 'end_turn',
          text: 'The answer is 2.',
          messageId: 'msg_3',
        },
        tokens: 6412,
        costUsd: expect.closeTo(msg3, 12) as number,
      },
      {
        kind: 'cost.tick',
        payload: {
          note: "the agent's total_cost_usd beyond the priced model calls",
          reportedCostUsd: 0.0125,
        },
        tokens: 0,
        costUsd: expect.closeTo(0.0125 - msg1 - msg2 - msg3, 9) as number,
      },
      { kind: 'agent.final_answer', payload: { answer: 'The answer is 2.' }, ...zero },
    ])
    expect(result).toMatchObject({
      terminatedBy: 'completed',
      success: true,
      finalAnswer: 'The answer is 2.',
      totalTokens: 6245 + 6235 + 6412,
      turns: 3,
    })
    expect(result?.totalCostUsd).toBeCloseTo(0.0125, 9)
    expect(record.warnings).toEqual([])
  })

  it('turns an error result and a non-zero exit into agent_error with both reasons', async () => {
    const { result, record } = await trial({ argv: fakeArgv('stream-json-error'), format: 'stream-json' })
    expect(result).toMatchObject({ terminatedBy: 'agent_error', success: false, finalAnswer: null })
    expect(result?.error).toBe(
      'the agent reported error_max_turns; exited with code 1: Error: Reached max turns (2)',
    )
    expect(record.outcome).toBe('agent_error')
  })
})

describe('commandRunner: what the command gets', () => {
  const seen = async (options: Partial<CommandRunnerOptions>, t: TrialOptions = {}) => {
    const { result } = await trial({ argv: fakeArgv('echo'), ...options }, t)
    expect(result?.terminatedBy).toBe('completed')
    return JSON.parse(result!.finalAnswer!) as {
      argv: string[]
      cwd: string
      stdin: string
      env: Record<string, string>
    }
  }

  it('substitutes {prompt}, {task_id} and {workdir}, runs in the workspace, and writes the prompt to stdin', async () => {
    const got = await seen({
      argv: [...fakeArgv('echo'), '--prompt={prompt}', '{task_id}', '{workdir}/x', '{nope}'],
    })
    expect(got.argv).toEqual(['--prompt=What is 1+1?', 'math/add one', `${workspace}/x`, '{nope}'])
    expect(got.cwd).toBe(workspace)
    expect(got.stdin).toBe('What is 1+1?')
  })

  it("gives an empty stdin with stdin: 'none', and runs in a temp dir that is removed when there is no workspace", async () => {
    const got = await seen({ stdin: 'none' }, { workdir: null })
    expect(got.stdin).toBe('')
    expect(got.cwd).not.toBe(workspace)
    expect(got.cwd.startsWith(tmpdir())).toBe(true)
    expect(existsSync(got.cwd)).toBe(false)
  })

  it('passes only the allowed variables: a secret in the environment does not reach the command unless named', async () => {
    process.env.SECRET_TOKEN = 'hunter2-secret'
    try {
      const scrubbed = await seen({ env: { AGENT_MODE: 'test' } })
      expect(JSON.stringify(scrubbed)).not.toContain('hunter2-secret')
      expect(Object.keys(scrubbed.env).sort()).toEqual(
        [
          'AGENT_MODE',
          ...['PATH', 'HOME', 'LANG', 'TMPDIR', 'TERM'].filter((n) => process.env[n] !== undefined),
        ].sort(),
      )
      // Named, it reaches the command; echoed back, it is redacted from everything we keep of the run.
      const named = await seen({ passEnv: ['PATH', 'SECRET_TOKEN'] })
      expect(named.env).toEqual({ PATH: process.env.PATH, SECRET_TOKEN: '[REDACTED:SECRET_TOKEN]' })
    } finally {
      delete process.env.SECRET_TOKEN
    }
  })

  it('records env names, never values, in runnerInfo', () => {
    const info = commandRunner({
      argv: ['agent', '{prompt}'],
      env: { API_KEY: 'sk-123' },
      cwd: '/x',
      name: 'mine',
    }).runnerInfo()
    expect(info).toEqual({
      name: 'mine',
      kind: 'command',
      config: {
        argv: ['agent', '{prompt}'],
        format: 'generic',
        passEnv: ['PATH', 'HOME', 'LANG', 'TMPDIR', 'TERM'],
        envNames: ['API_KEY'],
        cwd: 'fixed',
        stdin: 'prompt',
      },
    })
    expect(JSON.stringify(info)).not.toContain('sk-123')
  })
})

describe('commandRunner: stopping the command', () => {
  it('kills the whole process group at the wall-time limit, promptly, and the trial ends as limit_time', async () => {
    const pidFile = join(dir, 'pids.json')
    const started = Date.now()
    const { result, record } = await trial(
      { argv: fakeArgv('sleep'), env: { FAKE_PID_FILE: pidFile } },
      { limits: { maxWallSeconds: 1 } },
    )
    expect(Date.now() - started).toBeLessThan(4_000)
    expect(result?.terminatedBy).toBe('limit_time')
    expect(record.outcome).toBe('limit_exceeded')
    // The runner never returned, yet its output files are in the result: it registered them as it started.
    expect(result?.artifacts.map((a) => a.name)).toEqual(['stdout', 'stderr'])
    const { pid, child } = await readPids(pidFile)
    expect(await groupGoneWithin(pid, 5_000)).toBe(true)
    expect(await liveGroupMembers(pid)).not.toContain(child)
  })

  it('escalates to SIGKILL after killGraceMs when the agent ignores SIGTERM', async () => {
    const pidFile = join(dir, 'pids.json')
    const { result } = await trial(
      { argv: fakeArgv('sleep', '--ignore-term'), env: { FAKE_PID_FILE: pidFile }, killGraceMs: 300 },
      { limits: { maxWallSeconds: 1 } },
    )
    expect(result?.terminatedBy).toBe('limit_time')
    const { pid } = await readPids(pidFile)
    expect(await groupGoneWithin(pid, 5_000)).toBe(true)
  })

  it('kills the group when the run is cancelled, and the trial ends as interrupted', async () => {
    const pidFile = join(dir, 'pids.json')
    const controller = new AbortController()
    const running = trial(
      { argv: fakeArgv('sleep'), env: { FAKE_PID_FILE: pidFile } },
      { signal: controller.signal },
    )
    const { pid } = await readPids(pidFile)
    controller.abort(new Error('user pressed ^C'))
    const { result } = await running
    expect(result).toMatchObject({ terminatedBy: 'interrupted', error: 'interrupted: user pressed ^C' })
    expect(await groupGoneWithin(pid, 5_000)).toBe(true)
  })

  it('stops at a token limit crossed by the stream usage, and kills the command', async () => {
    const pidFile = join(dir, 'pids.json')
    const started = Date.now()
    const { result, events } = await trial(
      { argv: fakeArgv('stream-tokens'), format: 'stream-json', env: { FAKE_PID_FILE: pidFile } },
      { limits: { maxTokens: 2500 } },
    )
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(result).toMatchObject({ terminatedBy: 'limit_tokens', totalTokens: 3030, turns: 3 })
    expect(events.filter((e) => e.kind === 'agent.model_call')).toHaveLength(3)
    const { pid } = await readPids(pidFile)
    expect(await groupGoneWithin(pid, 5_000)).toBe(true)
  })

  it('kills what the command left running when it exits on its own', async () => {
    const pidFile = join(dir, 'pids.json')
    const { result } = await trial({ argv: fakeArgv('orphan'), env: { FAKE_PID_FILE: pidFile } })
    expect(result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'done' })
    const { pid, child } = await readPids(pidFile)
    expect(await groupGoneWithin(pid, 3_000)).toBe(true)
    expect(await liveGroupMembers(pid)).not.toContain(child)
  })
})

describe('commandRunner: failures', () => {
  it('turns a non-zero exit into agent_error with the tail of stderr', async () => {
    const { result, events } = await trial({ argv: fakeArgv('fail') })
    expect(result).toMatchObject({ terminatedBy: 'agent_error', success: false })
    expect(result?.error).toMatch(/^exited with code 3: …/)
    expect(result?.error).toMatch(/log line 499\nfatal: something broke$/)
    expect(result!.error!.length).toBeLessThan(2_100)
    expect(events.map((e) => e.kind)).toEqual(['agent.plan', 'agent.terminal'])
    const stderr = await readFile(artifactPath(result, 'stderr'), 'utf8')
    expect(stderr.startsWith('log line 0\n')).toBe(true)
  })

  it('reports a program that does not exist as infra_failure', async () => {
    const { result, record } = await trial({ argv: ['aeo-no-such-agent-binary', '{prompt}'] })
    expect(result?.terminatedBy).toBe('infra_failure')
    expect(result?.error).toContain('could not start "aeo-no-such-agent-binary": ENOENT')
    expect(record.outcome).toBe('infra_failure')
  })

  it('hints at PATH when passEnv leaves it out', async () => {
    const { result } = await trial({ argv: ['aeo-no-such-agent-binary'], passEnv: [] })
    expect(result?.terminatedBy).toBe('infra_failure')
    expect(result?.error).toContain('PATH is not passed to the command')
  })

  it('skips non-JSON and over-long lines with one counted warning each, and keeps them in the stdout artifact', async () => {
    const { result, events, record } = await trial({ argv: fakeArgv('noise') })
    expect(agentEvents(events).map((e) => [e.kind, e.payload])).toEqual([
      ['agent.plan', { text: 'first' }],
      ['agent.plan', { text: 'ééé' }],
      ['agent.final_answer', { answer: 'ok' }],
    ])
    expect(result).toMatchObject({ terminatedBy: 'completed', finalAnswer: 'ok' })
    expect(record.warnings).toEqual([
      '2 stdout line(s) were not JSON and were skipped (they are kept in the stdout artifact)',
      '1 stdout line(s) longer than 1048576 bytes were skipped (they are kept in the stdout artifact)',
      'skipped 1 JSON line(s) that are not an object with a "type"',
    ])
    const stdout = await readFile(artifactPath(result, 'stdout'), 'utf8')
    expect(stdout).toContain('starting up (not JSON)\n')
    expect(stdout).toContain('x'.repeat(1.5 * 1024 * 1024))
  })
})
