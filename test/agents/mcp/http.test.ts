// mcpTools over streamable HTTP, against the SDK's own server on 127.0.0.1: headers reach it, calls are traced
// naming the server, and a replay with the server stopped gives the same trace.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { callableRunner, type CallableAgent } from '../../../src/agents/callable/index.ts'
import { mcpTools, type McpToolset } from '../../../src/agents/mcp/index.ts'
import type { TraceEvent } from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { RecordingSession, type RecordMode } from '../../../src/recording/index.ts'
import { baseOptions, task } from '../../engine/helpers.ts'

/** A stateless MCP server with one tool, `echo`; it refuses requests without the expected bearer token. */
async function startServer(): Promise<{ url: string; server: Server; calls: string[] }> {
  const calls: string[] = []
  const server = createServer((req, res) => {
    if (req.headers.authorization !== 'Bearer test-token') {
      res.writeHead(401).end()
      return
    }
    const mcp = new McpServer({ name: 'echo-http', version: '1.0.0' })
    mcp.registerTool(
      'echo',
      { description: 'Echoes its text, upper-cased.', inputSchema: { text: z.string() } },
      async ({ text }) => {
        calls.push(text)
        return { content: [{ type: 'text', text: text.toUpperCase() }] }
      },
    )
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    res.on('close', () => {
      void transport.close()
      void mcp.close()
    })
    void mcp.connect(transport).then(() => transport.handleRequest(req, res))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/mcp`, server, calls }
}

let dir: string
let live: Awaited<ReturnType<typeof startServer>>
const opened: McpToolset[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-mcp-http-'))
  live = await startServer()
})
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()))
  live.server.closeAllConnections()
  await new Promise((resolve) => live.server.close(resolve))
  await rm(dir, { recursive: true, force: true })
})

function echo(): McpToolset {
  const toolset = mcpTools({ url: live.url, headers: { authorization: 'Bearer test-token' } })
  opened.push(toolset)
  return toolset
}

const agent =
  (toolset: McpToolset): CallableAgent =>
  async () => {
    const [tool] = await toolset.tools()
    const first = await tool!.call({ text: 'hello' })
    const second = await tool!.call({ text: 'again' })
    return `${JSON.stringify(first)} ${JSON.stringify(second)}`
  }

const run = (toolset: McpToolset, mode: RecordMode) =>
  runTrial(
    baseOptions({
      runner: callableRunner(agent(toolset)),
      modelCalls: new RecordingSession({ dir, mode, ci: false }).gateFor({ taskId: task.id, trial: 0 }),
    }),
  )

const behaviour = (events: readonly TraceEvent[]) =>
  events.map((e) => {
    const { latencyMs: _latency, wallSeconds: _wall, ...payload } = e.payload as Record<string, unknown>
    return [e.kind, payload]
  })

describe('mcpTools over streamable HTTP', () => {
  it('calls the tools with the headers given, naming the server by its host; a replay needs no server', async () => {
    const recorded = await run(echo(), 'auto')
    expect(recorded.result?.finalAnswer).toBe('"HELLO" "AGAIN"')
    expect(live.calls).toEqual(['hello', 'again'])
    const host = new URL(live.url).host
    expect(recorded.events.filter((e) => e.kind === 'agent.tool_call').map((e) => e.payload)).toEqual([
      { tool: 'echo', args: { text: 'hello' }, callId: 'mcp_1', server: host },
      { tool: 'echo', args: { text: 'again' }, callId: 'mcp_2', server: host },
    ])

    live.server.closeAllConnections()
    await new Promise((resolve) => live.server.close(resolve))
    const replayed = await run(echo(), 'replay')
    expect(replayed.result?.finalAnswer).toBe('"HELLO" "AGAIN"')
    expect(behaviour(replayed.events)).toEqual(behaviour(recorded.events))
    expect(live.calls).toEqual(['hello', 'again'])
    live = await startServer()
  })

  it('without the headers the server refuses, and the trial is an infra failure naming the server', async () => {
    const toolset = mcpTools({ name: 'echo', url: live.url })
    opened.push(toolset)
    const { result } = await run(toolset, 'off')
    expect(result?.terminatedBy).toBe('infra_failure')
    expect(result?.error).toContain('MCP server "echo": could not connect')
  })
})
