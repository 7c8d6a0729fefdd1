// mcpTools over stdio, with the SDK's own server in a child process: a callable agent lists and calls the server's
// tools, the trace names server and tool, and a replay with the server gone gives the same trace.
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { callableRunner, type CallableAgent } from '../../../src/agents/callable/index.ts'
import { mcpTools, McpToolError, type McpToolset } from '../../../src/agents/mcp/index.ts'
import type { TraceEvent } from '../../../src/core/index.ts'
import { runTrial } from '../../../src/engine/index.ts'
import { toolUse } from '../../../src/evaluators/index.ts'
import { RecordingSession, type RecordMode } from '../../../src/recording/index.ts'
import { baseOptions, task } from '../../engine/helpers.ts'

const FIXTURE = fileURLToPath(new URL('../../fixtures/mcp/calc-server.mjs', import.meta.url))
const REPO = fileURLToPath(new URL('../../..', import.meta.url))

let dir: string
let serverFile: string
const opened: McpToolset[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-mcp-'))
  // The server's copy lives in the repo (so it resolves the SDK from node_modules) and is deleted to "stop" it.
  serverFile = join(REPO, 'test', 'fixtures', 'mcp', `calc-${process.pid}-${Date.now()}.mjs`)
  await copyFile(FIXTURE, serverFile)
})
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()))
  await rm(dir, { recursive: true, force: true })
  await rm(serverFile, { force: true })
})

function calc(env: Record<string, string> = {}): McpToolset {
  const toolset = mcpTools({ name: 'calc', command: process.execPath, args: [serverFile], env })
  opened.push(toolset)
  return toolset
}

/** Lists the tools, adds, looks up a capital and one that fails, as a model-driven agent would. */
function agent(toolset: McpToolset, args: { a: unknown; b: number } = { a: 2, b: 3 }): CallableAgent {
  return async () => {
    const tools = await toolset.tools()
    const byName = new Map(tools.map((t) => [t.name, t]))
    const sum = await byName.get('add')!.call(args as never)
    const city = await byName.get('lookup')!.call({ country: 'France' })
    let failure = ''
    try {
      await byName.get('lookup')!.call({ country: 'Atlantis' })
    } catch (e) {
      failure = e instanceof McpToolError ? 'tool error' : String(e)
    }
    return `${tools.map((t) => t.name).join(',')} ${JSON.stringify(sum)} ${JSON.stringify(city)} ${failure}`
  }
}

const run = (toolset: McpToolset, mode: RecordMode, agentFn = agent(toolset), ci = false) =>
  runTrial(
    baseOptions({
      runner: callableRunner(agentFn),
      modelCalls: new RecordingSession({ dir, mode, ci }).gateFor({ taskId: task.id, trial: 0 }),
    }),
  )

const behaviour = (events: readonly TraceEvent[]) =>
  events.map((e) => {
    const { latencyMs: _latency, wallSeconds: _wall, ...payload } = e.payload as Record<string, unknown>
    return [e.kind, payload]
  })

describe('mcpTools over stdio', () => {
  it("lists the server's tools with their declared schemas", async () => {
    const tools = await calc().tools()
    expect(tools.map((t) => [t.name, t.server, t.description])).toEqual([
      ['add', 'calc', 'Adds two numbers.'],
      ['lookup', 'calc', 'Looks up a capital city.'],
    ])
    expect(tools[0]!.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    })
  })

  it('traces each call and result as tool events naming the server and the tool', async () => {
    const { result, events } = await run(calc(), 'off')
    expect(result?.finalAnswer).toBe('add,lookup "5" "Paris" tool error')
    const tools = events
      .filter((e) => e.kind === 'agent.tool_call' || e.kind === 'agent.tool_result')
      .map((e) => [e.kind, e.payload])
    expect(tools).toEqual([
      ['agent.tool_call', { tool: 'add', args: { a: 2, b: 3 }, callId: 'mcp_1', server: 'calc' }],
      ['agent.tool_result', { tool: 'add', result: '5', callId: 'mcp_1', server: 'calc' }],
      ['agent.tool_call', { tool: 'lookup', args: { country: 'France' }, callId: 'mcp_2', server: 'calc' }],
      ['agent.tool_result', { tool: 'lookup', result: 'Paris', callId: 'mcp_2', server: 'calc' }],
      ['agent.tool_call', { tool: 'lookup', args: { country: 'Atlantis' }, callId: 'mcp_3', server: 'calc' }],
      [
        'agent.tool_result',
        {
          tool: 'lookup',
          result: 'unknown country Atlantis',
          isError: true,
          callId: 'mcp_3',
          server: 'calc',
        },
      ],
    ])
  })

  it('records the list and the results, then replays them with the server gone: the same trace', async () => {
    const recorded = await run(calc(), 'auto')
    expect(recorded.result?.terminatedBy).toBe('completed')
    await rm(serverFile)
    const replayed = await run(calc(), 'replay')
    expect(replayed.result?.terminatedBy).toBe('completed')
    expect(replayed.result?.finalAnswer).toBe(recorded.result?.finalAnswer)
    expect(behaviour(replayed.events)).toEqual(behaviour(recorded.events))
  })

  it('a replay whose tool arguments changed has no recording, and says so naming the server', async () => {
    await run(calc(), 'auto')
    await rm(serverFile)
    const toolset = calc()
    const { result } = await run(toolset, 'replay', agent(toolset, { a: 4, b: 3 }))
    expect(result?.terminatedBy).toBe('infra_failure')
    expect(result?.error).toContain('no recorded model call matches this request ("mcp:calc"')
  })

  it('a replay with no recording for a call ends the trial as infra_failure, even when the agent swallows it', async () => {
    await run(calc(), 'auto')
    await rm(serverFile)
    const toolset = calc()
    const swallowing: CallableAgent = async () => {
      const lookup = (await toolset.tools()).find((t) => t.name === 'lookup')!
      try {
        return JSON.stringify(await lookup.call({ country: 'Japan' }))
      } catch {
        return 'carried on'
      }
    }
    const { result } = await run(toolset, 'replay', swallowing)
    expect(result?.terminatedBy).toBe('infra_failure')
    expect(result?.error).toContain('no recorded model call matches this request ("mcp:calc"')
  })

  it('a changed tool behaviour shows in a fresh recording (the server is really called when recording)', async () => {
    const { result } = await run(calc({ CALC_OFFSET: '10' }), 'record')
    expect(result?.finalAnswer).toBe('add,lookup "15" "Paris" tool error')
  })

  it("the server's declared schemas feed the tool-use evaluator: a call with a wrong argument type is invalid", async () => {
    const toolset = calc()
    const specs = await toolset.specs()
    const { record } = await runTrial(
      baseOptions({
        runner: callableRunner(agent(toolset, { a: 'two', b: 3 })),
        evaluators: [toolUse({ tools: specs })],
      }),
    )
    const score = record.scores.find((s) => s.evaluatorId === 'tool-use')
    expect(score?.passed).toBe(false)
    expect(score?.explanation).toContain('1 of 1 tool call invalid: step 0: add: /a must be number')
  })

  it('a server that exits mid-trial fails that call, and the next call starts it again', async () => {
    const toolset = calc({ CALC_EXIT_ON_ADD: '1' })
    const tools = await toolset.tools()
    const add = tools.find((t) => t.name === 'add')!
    const lookup = tools.find((t) => t.name === 'lookup')!
    await expect(add.call({ a: 1, b: 2 })).rejects.toThrow()
    await expect(lookup.call({ country: 'Japan' })).resolves.toBe('Tokyo')
  })

  it('a server that cannot start is an infra failure that names the server and the command', async () => {
    await rm(serverFile)
    const { result } = await run(calc(), 'off')
    expect(result?.terminatedBy).toBe('infra_failure')
    expect(result?.error).toContain('MCP server "calc": could not connect')
  })
})
