import { AgentEvalOpsError } from '../../core/index.ts'

export interface McpSdk {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client
  StdioClientTransport: typeof import('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport
  getDefaultEnvironment: typeof import('@modelcontextprotocol/sdk/client/stdio.js').getDefaultEnvironment
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport
}

let sdk: Promise<McpSdk> | undefined

/**
 * The MCP SDK, loaded at the first live connection rather than when agentevalops is imported: it is an optional peer
 * dependency, and a replay never needs it.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]).then(
    ([client, stdio, http]) => ({
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      getDefaultEnvironment: stdio.getDefaultEnvironment,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    }),
    (e: unknown) => {
      sdk = undefined
      const code = (e as { code?: unknown } | null)?.code
      const missing =
        (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
        String((e as Error).message).includes('@modelcontextprotocol/sdk')
      throw missing
        ? new AgentEvalOpsError('INFRA_FAILURE', 'the MCP SDK (@modelcontextprotocol/sdk) is not installed', {
            hint: 'mcpTools() connects through it: npm install @modelcontextprotocol/sdk@^1.32',
            cause: e,
          })
        : e
    },
  )
  return sdk
}
