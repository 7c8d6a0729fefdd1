// openaiRunner({ mcp: [mcpTools(…)] }) against the fake Chat Completions server: the model is offered the MCP
// server's tools, its calls' events name the server, and a replay with both servers gone gives the same trace.
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mcpTools, type McpToolset } from '../../../src/agents/mcp/index.ts'
import { openaiRunner } from '../../../src/agents/openai/index.ts'
import { defineTask, type TraceEvent } from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { RecordingSession, type RecordMode } from '../../../src/recording/index.ts'
import { MemoryTraceStore } from '../../../src/stores/index.ts'
import { FakeOpenAIServer } from '../../support/fake-openai-server.ts'

const KEY = 'sk-test-mcp-openai'
const FIXTURE = fileURLToPath(new URL('../../fixtures/mcp/calc-server.mjs', import.meta.url))
const REPO = fileURLToPath(new URL('../../..', import.meta.url))
const task = defineTask({
  id: 'sum-capital',
  benchmark: 'mcp-demo',
  prompt: 'Add 2 and 3, then name a capital.',
})

let dir: string
let serverFile: string
let chat: FakeOpenAIServer
const opened: McpToolset[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-mcp-openai-'))
  serverFile = join(REPO, 'test', 'fixtures', 'mcp', `calc-o-${process.pid}-${Date.now()}.mjs`)
  await copyFile(FIXTURE, serverFile)
  chat = await FakeOpenAIServer.start()
})
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()))
  await chat.close()
  await rm(dir, { recursive: true, force: true })
  await rm(serverFile, { force: true })
})

function run(mode: RecordMode, baseURL: string) {
  const calc = mcpTools({ name: 'calc', command: process.execPath, args: [serverFile] })
  opened.push(calc)
  return runTrial({
    runId: 'run-mcp-openai',
    benchmark: { id: 'mcp-demo', version: '1', datasetChecksum: 'abc' },
    task,
    trial: 0,
    runner: openaiRunner({ model: 'gpt-4.1-mini', apiKey: KEY, baseURL, mcp: [calc] }),
    traceStore: new MemoryTraceStore(),
    modelCalls: new RecordingSession({ dir, mode, ci: false }).gateFor({ taskId: task.id, trial: 0 }),
  })
}

const behaviour = (events: readonly TraceEvent[]) =>
  events.map((e) => {
    const { latencyMs: _latency, wallSeconds: _wall, ...payload } = e.payload as Record<string, unknown>
    return [e.kind, payload]
  })

describe('openaiRunner with MCP tools', () => {
  it("offers the server's tools, names the server on their events, and replays with both servers gone", async () => {
    chat.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'add', arguments: { a: 2, b: 3 } }] },
      { toolCalls: [{ id: 'call_2', name: 'lookup', arguments: { country: 'Japan' } }] },
      { text: '5 and Tokyo' },
    )
    const baseURL = chat.url
    const recorded = await run('auto', baseURL)
    expect(recorded.result?.terminatedBy).toBe('completed')
    const offered = (chat.requests[0]!.body as { tools: { function: { name: string } }[] }).tools
    expect(offered.map((t) => t.function.name)).toEqual(['add', 'lookup'])
    expect(
      recorded.events
        .filter((e) => e.kind === 'agent.tool_call' || e.kind === 'agent.tool_result')
        .map((e) => e.payload),
    ).toEqual([
      { tool: 'add', args: { a: 2, b: 3 }, callId: 'call_1', server: 'calc' },
      { tool: 'add', result: '5', isError: false, callId: 'call_1', server: 'calc' },
      { tool: 'lookup', args: { country: 'Japan' }, callId: 'call_2', server: 'calc' },
      { tool: 'lookup', result: 'Tokyo', isError: false, callId: 'call_2', server: 'calc' },
    ])

    await chat.close()
    await rm(serverFile)
    const replayed = await run('replay', baseURL)
    expect(replayed.result?.terminatedBy).toBe('completed')
    expect(behaviour(replayed.events)).toEqual(behaviour(recorded.events))
    chat = await FakeOpenAIServer.start()
  })
})
