// anthropicRunner({ mcp: [mcpTools(…)] }) against the fake Messages server: the model is offered the MCP server's
// tools, its calls' events name the server, and a replay with both servers gone gives the same trace.
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { anthropicRunner } from '../../../src/agents/anthropic/index.ts'
import { mcpTools, type McpToolset } from '../../../src/agents/mcp/index.ts'
import { defineTask, type TraceEvent } from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { RecordingSession, type RecordMode } from '../../../src/recording/index.ts'
import { MemoryTraceStore } from '../../../src/stores/index.ts'
import {
  FakeMessagesServer,
  messageReply,
  textReply,
  toolUseBlock,
} from '../../support/fake-messages-server.ts'

const KEY = 'sk-ant-test-mcp'
const FIXTURE = fileURLToPath(new URL('../../fixtures/mcp/calc-server.mjs', import.meta.url))
const REPO = fileURLToPath(new URL('../../..', import.meta.url))
const task = defineTask({
  id: 'capital-sum',
  benchmark: 'mcp-demo',
  prompt: 'Add 2 and 3, then name the capital.',
})

let dir: string
let serverFile: string
let messages: FakeMessagesServer
const opened: McpToolset[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-mcp-anthropic-'))
  serverFile = join(REPO, 'test', 'fixtures', 'mcp', `calc-a-${process.pid}-${Date.now()}.mjs`)
  await copyFile(FIXTURE, serverFile)
  messages = await FakeMessagesServer.start({ apiKey: KEY })
})
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()))
  await messages.close()
  await rm(dir, { recursive: true, force: true })
  await rm(serverFile, { force: true })
})

function run(mode: RecordMode, baseURL: string) {
  const calc = mcpTools({ name: 'calc', command: process.execPath, args: [serverFile] })
  opened.push(calc)
  const runner = anthropicRunner({ model: 'claude-haiku-4-5', apiKey: KEY, baseURL, mcp: [calc] })
  return runTrial({
    runId: 'run-mcp',
    benchmark: { id: 'mcp-demo', version: '1', datasetChecksum: 'abc' },
    task,
    trial: 0,
    runner,
    traceStore: new MemoryTraceStore(),
    modelCalls: new RecordingSession({ dir, mode, ci: false }).gateFor({ taskId: task.id, trial: 0 }),
  })
}

const behaviour = (events: readonly TraceEvent[]) =>
  events.map((e) => {
    const { latencyMs: _latency, wallSeconds: _wall, ...payload } = e.payload as Record<string, unknown>
    return [e.kind, payload]
  })

describe('anthropicRunner with MCP tools', () => {
  it("offers the server's tools, names the server on their events, and replays with both servers gone", async () => {
    messages.enqueue(
      messageReply({ content: [toolUseBlock('add', { a: 2, b: 3 }, 'toolu_1')] }),
      messageReply({ content: [toolUseBlock('lookup', { country: 'Atlantis' }, 'toolu_2')] }),
      textReply('5, and no such country'),
    )
    const baseURL = messages.url
    const recorded = await run('auto', baseURL)
    expect(recorded.result?.terminatedBy).toBe('completed')
    const offered = (
      messages.messageRequests[0]!.body as { tools: { name: string; input_schema: unknown }[] }
    ).tools
    expect(offered.map((t) => t.name)).toEqual(['add', 'lookup'])
    expect(offered[0]!.input_schema).toMatchObject({ type: 'object', required: ['a', 'b'] })
    const toolEvents = recorded.events
      .filter((e) => e.kind === 'agent.tool_call' || e.kind === 'agent.tool_result')
      .map((e) => e.payload)
    expect(toolEvents).toEqual([
      { tool: 'add', args: { a: 2, b: 3 }, callId: 'toolu_1', server: 'calc' },
      { tool: 'add', result: '5', isError: false, callId: 'toolu_1', server: 'calc' },
      { tool: 'lookup', args: { country: 'Atlantis' }, callId: 'toolu_2', server: 'calc' },
      {
        tool: 'lookup',
        result: 'tool "lookup" failed: unknown country Atlantis',
        isError: true,
        callId: 'toolu_2',
        server: 'calc',
      },
    ])

    await messages.close()
    await rm(serverFile)
    const replayed = await run('replay', baseURL)
    expect(replayed.result?.terminatedBy).toBe('completed')
    expect(behaviour(replayed.events)).toEqual(behaviour(recorded.events))
    messages = await FakeMessagesServer.start({ apiKey: KEY })
  })
})
