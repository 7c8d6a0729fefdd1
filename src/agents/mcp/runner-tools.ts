import type { RunContext, ToolSpec } from '../../core/index.ts'
import type { ToolHandler } from '../anthropic/tools.ts'
import type { McpToolset } from './toolset.ts'
import type { McpTool } from './types.ts'

/**
 * For runners that trace their own tool calls (anthropicRunner, openaiRunner): the MCP servers' tools of one trial by
 * name, listed through its recording. A name the task's own tools (`taken`) or an earlier server has is skipped:
 * the model must see each name once.
 */
export async function mcpToolsOf(
  servers: readonly McpToolset[],
  ctx: RunContext,
  taken: ReadonlySet<string>,
): Promise<Map<string, McpTool>> {
  const byName = new Map<string, McpTool>()
  for (const server of servers) {
    for (const tool of await server.toolsIn(ctx))
      if (!taken.has(tool.name) && !byName.has(tool.name)) byName.set(tool.name, tool)
  }
  return byName
}

/** The tools as task tool specs, for a runner to offer beside the task's. */
export function mcpToolSpecs(tools: ReadonlyMap<string, McpTool>): ToolSpec[] {
  return [...tools.values()].map((t) => ({
    name: t.name,
    description: t.description ?? '',
    inputSchema: t.inputSchema,
  }))
}

/** An MCP tool as a handler: the model's input is its arguments (an object, as its schema requires). */
export function mcpHandler(tool: McpTool | undefined): ToolHandler | undefined {
  if (!tool) return undefined
  return (input) =>
    tool.call(input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {})
}
