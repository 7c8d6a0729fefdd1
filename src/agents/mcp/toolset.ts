import {
  errorMessage,
  isAgentEvalOpsError,
  type JsonObject,
  type JsonValue,
  type RunContext,
  type ToolSpec,
} from '../../core/index.ts'
import { currentCallableTrial } from '../callable/trial-scope.ts'
import {
  checkServerOptions,
  McpConnection,
  serverName,
  type ListedTool,
  type ToolReply,
} from './connection.ts'
import { McpToolError, type McpServerOptions, type McpTool } from './types.ts'

/** An MCP server's tools, for the agents of an eval file. */
export interface McpToolset {
  /** The server's name, as its tool events carry it. */
  readonly name: string
  /**
   * The server's tools. Inside a callableRunner agent the list goes through the trial's recording, like every
   * call of its tools: a replay connects to nothing.
   */
  tools(): Promise<McpTool[]>
  /**
   * For a runner that traces tool calls itself (anthropicRunner's `mcp` option): the tools of the trial `run`, their
   * list and results through its recording, emitting no events of their own.
   */
  toolsIn(run: RunContext): Promise<McpTool[]>
  /**
   * The tools' declared schemas as task tool specs, for the tool-use evaluator (`toolUse({ tools })`) or a task's
   * `tools`: an agent's calls are then checked against what the server declares. Asks the server (live).
   */
  specs(): Promise<ToolSpec[]>
  /** Ends the connection (and a stdio server's process). Call it once the eval file is done, e.g. in afterAll. */
  close(): Promise<void>
}

/**
 * Tools from an MCP server over stdio (`{ command, args }`) or streamable HTTP (`{ url }`). The connection opens at
 * the first live use and is shared by every trial. The trial a call belongs to is found the way `traced()` finds
 * it: from the callableRunner agent the call runs in (async context), so no ctx is passed around.
 */
export function mcpTools(options: McpServerOptions): McpToolset {
  checkServerOptions(options)
  const name = serverName(options)
  const connection = new McpConnection(options, name)

  const listed = async (): Promise<ListedTool[]> => {
    const run = currentCallableTrial()?.run
    return run ? recordedList(run, connection) : connection.listTools()
  }

  const call = async (tool: string, args: JsonObject): Promise<JsonValue> => {
    const trial = currentCallableTrial()
    if (!trial) return unwrap(tool, await connection.callTool(tool, args))
    try {
      return await tracedCall(trial.run, { connection, server: name, tool, args })
    } catch (e) {
      // An agent that catches its tools' errors must not hide a replay that has no recording for this call.
      if (isAgentEvalOpsError(e, 'RECORDING_MISSING') || isAgentEvalOpsError(e, 'RECORDING_UNKEYED'))
        trial.noteRecordingError(e)
      throw e
    }
  }

  const asTool = (
    listedTool: ListedTool,
    callWith: (tool: string, args: JsonObject) => Promise<JsonValue> = call,
  ): McpTool => ({
    name: listedTool.name,
    description: listedTool.description,
    inputSchema: listedTool.inputSchema,
    server: name,
    call: (args) => callWith(listedTool.name, args),
  })

  return {
    name,
    tools: async () => (await listed()).map((t) => asTool(t)),
    toolsIn: async (run) =>
      (await recordedList(run, connection)).map((t) =>
        asTool(t, async (tool, args) => unwrap(tool, await recordedCall(run, connection, tool, args))),
      ),
    specs: async () =>
      (await connection.listTools()).map((t) => ({
        name: t.name,
        // ToolSpec's description is required; a server may leave it out.
        description: t.description ?? '',
        inputSchema: t.inputSchema,
      })),
    close: () => connection.close(),
  }
}

/** The gate's request for one server method: keyed under `mcp`, so it never matches a model call's key. */
function keyOf(server: string, mcp: JsonObject): JsonObject {
  return { model: `mcp:${server}`, mcp }
}

async function recordedList(run: RunContext, connection: McpConnection): Promise<ListedTool[]> {
  const exchange = await run.modelCalls.exchange(
    keyOf(connection.name, { method: 'tools/list' }),
    async () => ({
      response: (await connection.listTools()) as unknown as JsonValue,
      attempts: [],
    }),
  )
  return exchange.response as unknown as ListedTool[]
}

async function recordedCall(
  run: RunContext,
  connection: McpConnection,
  tool: string,
  args: JsonObject,
): Promise<ToolReply> {
  const exchange = await run.modelCalls.exchange(
    keyOf(connection.name, { method: 'tools/call', tool, arguments: args }),
    async () => ({
      response: (await connection.callTool(tool, args, run.signal)) as unknown as JsonValue,
      attempts: [],
    }),
  )
  return exchange.response as unknown as ToolReply
}

const callCounts = new WeakMap<RunContext, number>()

/** One tool call in a trial: its events name the server, and its result is recorded and replayed. */
async function tracedCall(
  run: RunContext,
  call: { connection: McpConnection; server: string; tool: string; args: JsonObject },
): Promise<JsonValue> {
  const { connection, server, tool, args } = call
  if (run.signal.aborted) throw run.signal.reason
  const count = (callCounts.get(run) ?? 0) + 1
  callCounts.set(run, count)
  const callId = `mcp_${count}`
  run.emit('agent.tool_call', { tool, args, callId, server })
  let reply: ToolReply
  try {
    reply = await recordedCall(run, connection, tool, args)
  } catch (e) {
    // A limit or cancel that stopped the call ends the trial; it is not the tool's failure.
    if (run.signal.aborted) throw run.signal.reason
    run.emit('agent.tool_result', {
      tool,
      result: { error: errorMessage(e) },
      isError: true,
      callId,
      server,
    })
    throw e
  }
  run.emit('agent.tool_result', {
    tool,
    result: reply.result,
    ...(reply.isError ? { isError: true } : {}),
    callId,
    server,
  })
  return unwrap(tool, reply)
}

function unwrap(tool: string, reply: ToolReply): JsonValue {
  if (reply.isError) throw new McpToolError(tool, reply.result)
  return reply.result
}
