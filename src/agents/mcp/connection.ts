import { basename, extname } from 'node:path'
import { AgentEvalOpsError, errorMessage, type JsonObject, type JsonValue } from '../../core/index.ts'
import { loadMcpSdk, type McpSdk } from './load-sdk.ts'
import type { McpServerOptions } from './types.ts'

type Client = InstanceType<McpSdk['Client']>

/** A tool as the server lists it: plain JSON, so it can be recorded. */
export interface ListedTool {
  name: string
  description?: string
  inputSchema: JsonObject
}

/** A tool's result as the server gives it, reduced to JSON: what the trace, the recording and the agent see. */
export interface ToolReply {
  result: JsonValue
  isError: boolean
}

/** The server's name, known without connecting: a replay must name it the same with no server to ask. */
export function serverName(options: McpServerOptions): string {
  if (options.name !== undefined) return options.name
  if ('url' in options) return new URL(options.url).host
  const script = [...(options.args ?? [])].reverse().find((a) => /\.[cm]?[jt]s$|\.py$/.test(a))
  const file = basename(script ?? options.command)
  return file.slice(0, file.length - extname(file).length) || file
}

/** Checks options given in code, so a typo is an error that says what to write rather than a failed spawn. */
export function checkServerOptions(options: McpServerOptions): void {
  const has = (key: string): boolean => Object.hasOwn(options, key)
  const fail = (message: string): never => {
    throw new AgentEvalOpsError('CONFIG_INVALID', `mcpTools: ${message}`, {
      hint: 'Pass { command, args?, env?, cwd?, name? } for a stdio server or { url, headers?, name? } for streamable HTTP.',
    })
  }
  if (has('command') === has('url')) fail('give exactly one of `command` (stdio) or `url` (streamable HTTP)')
  if ('url' in options) {
    if (!URL.canParse(options.url)) fail(`url ${JSON.stringify(options.url)} is not a URL`)
  } else if (typeof options.command !== 'string' || options.command === '') {
    fail('`command` must be the program to start, e.g. "node"')
  }
  if (options.name !== undefined && (typeof options.name !== 'string' || options.name === ''))
    fail('`name` must be a non-empty string')
}

/**
 * One live connection to a server, opened at its first use and shared by every trial that uses it (the SDK's
 * client takes concurrent requests). Never opened by a replay, so a replay needs neither the server nor the SDK.
 */
export class McpConnection {
  private client: Promise<Client> | undefined

  constructor(
    private readonly options: McpServerOptions,
    readonly name: string,
  ) {}

  async listTools(): Promise<ListedTool[]> {
    const client = await this.connect()
    const listed: ListedTool[] = []
    let cursor: string | undefined
    // Bounded: a server whose cursor never ends must not hang the trial.
    for (let page = 0; page < 100; page++) {
      const reply = await client.listTools(cursor === undefined ? {} : { cursor })
      for (const tool of reply.tools) {
        listed.push({
          name: tool.name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          inputSchema: toJsonObject(tool.inputSchema),
        })
      }
      cursor = reply.nextCursor
      if (cursor === undefined) break
    }
    return listed
  }

  async callTool(tool: string, args: JsonObject, signal?: AbortSignal): Promise<ToolReply> {
    const client = await this.connect()
    const reply = await client.callTool({ name: tool, arguments: args }, undefined, signal ? { signal } : {})
    return { result: resultValue(reply), isError: reply.isError === true }
  }

  async close(): Promise<void> {
    const client = this.client
    this.client = undefined
    if (client) await (await client.catch(() => undefined))?.close()
  }

  private connect(): Promise<Client> {
    if (this.client) return this.client
    // A server that exits or drops the connection is reconnected at the next call, not failed for good.
    const forget = (): void => {
      if (this.client === opening) this.client = undefined
    }
    const opening: Promise<Client> = this.open(forget).catch((e: unknown) => {
      forget()
      throw e instanceof AgentEvalOpsError
        ? e
        : new AgentEvalOpsError(
            'INFRA_FAILURE',
            `MCP server ${JSON.stringify(this.name)}: could not connect (${errorMessage(e)})`,
            {
              hint:
                'url' in this.options
                  ? `Check that the server listens at ${this.options.url}.`
                  : `Check that \`${[this.options.command, ...(this.options.args ?? [])].join(' ')}\` starts an MCP server on stdio.`,
              cause: e,
            },
          )
    })
    this.client = opening
    return opening
  }

  private async open(onClose: () => void): Promise<Client> {
    const sdk = await loadMcpSdk()
    const client = new sdk.Client({ name: 'agentevalops', version: '1' })
    const { options } = this
    const transport =
      'url' in options
        ? new sdk.StreamableHTTPClientTransport(new URL(options.url), {
            requestInit: { headers: { ...options.headers } },
          })
        : new sdk.StdioClientTransport({
            command: options.command,
            args: [...(options.args ?? [])],
            env: { ...sdk.getDefaultEnvironment(), ...options.env },
            ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
            // The server's own logging goes to our stderr rather than being lost.
            stderr: 'inherit',
          })
    await client.connect(transport)
    client.onclose = onClose
    return client
  }
}

/** The structured content when the server gives one, else the text of its text blocks, else the blocks as JSON. */
function resultValue(reply: {
  content?: unknown
  structuredContent?: unknown
  toolResult?: unknown
}): JsonValue {
  if (reply.structuredContent !== undefined) return toJson(reply.structuredContent)
  if (reply.content === undefined) return toJson(reply.toolResult ?? null)
  const blocks = Array.isArray(reply.content) ? (reply.content as { type?: unknown; text?: unknown }[]) : []
  if (blocks.length > 0 && blocks.every((b) => b.type === 'text' && typeof b.text === 'string'))
    return blocks.map((b) => b.text as string).join('\n')
  return toJson(blocks)
}

function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue
}

function toJsonObject(value: unknown): JsonObject {
  const json = toJson(value)
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? json : { type: 'object' }
}
