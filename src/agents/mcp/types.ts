import type { JsonObject, JsonValue } from '../../core/index.ts'

interface McpServerNaming {
  /**
   * The server's name in the trace (`server` on its tool events) and in the recordings' keys. Default: the script's
   * file name for stdio (`node servers/calc.mjs` → `calc`), the URL's host for HTTP.
   */
  name?: string
}

/** A server the harness starts as a child process and talks to over its stdin/stdout. */
export interface McpStdioServer extends McpServerNaming {
  command: string
  args?: readonly string[]
  /** Added to the SDK's safe default environment (PATH, HOME…): the child never sees the rest of ours. */
  env?: Readonly<Record<string, string>>
  cwd?: string
}

/** A server already listening, reached over streamable HTTP. */
export interface McpHttpServer extends McpServerNaming {
  url: string
  headers?: Readonly<Record<string, string>>
}

export type McpServerOptions = McpStdioServer | McpHttpServer

/**
 * One tool of an MCP server, in a provider-neutral shape: hand `name`, `description` and `inputSchema` to whichever
 * model API the agent uses, and `call` its arguments when the model asks for it.
 */
export interface McpTool {
  readonly name: string
  readonly description: string | undefined
  /** The JSON Schema the server declares for the tool's arguments (always an object schema). */
  readonly inputSchema: JsonObject
  /** The server's name, as its tool events carry it. */
  readonly server: string
  /**
   * Calls the tool. Inside a callableRunner agent the call and its result are `agent.tool_call` /
   * `agent.tool_result` events naming the server, and the result goes through the trial's recording (so a replay
   * needs no server). Resolves with the result as JSON (the structured content when the server gives one, else the
   * text, else the content blocks); a result the server marks as an error rejects with McpToolError.
   */
  call(args: JsonObject): Promise<JsonValue>
}

/** A tool result the server marked `isError`: the agent may report it to its model and go on. */
export class McpToolError extends Error {
  constructor(
    readonly tool: string,
    readonly result: JsonValue,
  ) {
    // The result alone: runners that report a thrown error as `tool "x" failed: …` add the tool's name.
    super(typeof result === 'string' ? result : JSON.stringify(result))
    this.name = 'McpToolError'
  }
}
