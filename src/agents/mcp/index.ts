export { mcpTools, type McpToolset } from './toolset.ts'
export {
  McpToolError,
  type McpHttpServer,
  type McpServerOptions,
  type McpStdioServer,
  type McpTool,
} from './types.ts'
export { mcpHandler, mcpToolSpecs, mcpToolsOf } from './runner-tools.ts'
