// mcpTools' options are checked when it is called, so a typo fails at definition with what to write.
import { describe, expect, it } from 'vitest'
import { mcpTools, type McpServerOptions } from '../../../src/agents/mcp/index.ts'

describe('mcpTools options', () => {
  it.each([
    [{ command: 'node', url: 'http://127.0.0.1:1/mcp' }, 'give exactly one of `command` (stdio) or `url`'],
    [{}, 'give exactly one of `command` (stdio) or `url`'],
    [{ url: 'not a url' }, 'url "not a url" is not a URL'],
    [{ command: '' }, '`command` must be the program to start'],
    [{ command: 'node', name: '' }, '`name` must be a non-empty string'],
  ])('%j is a CONFIG_INVALID error saying what is wrong', (options, message) => {
    let error: unknown
    try {
      mcpTools(options as McpServerOptions)
    } catch (e) {
      error = e
    }
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' })
    expect((error as Error).message).toContain(message)
  })

  it('names a server without connecting: the script for stdio, the host for HTTP, or the name given', () => {
    expect(mcpTools({ command: 'node', args: ['--no-warnings', 'servers/calc.mjs'] }).name).toBe('calc')
    expect(mcpTools({ command: '/usr/local/bin/search-server' }).name).toBe('search-server')
    expect(mcpTools({ url: 'http://127.0.0.1:8931/mcp' }).name).toBe('127.0.0.1:8931')
    expect(mcpTools({ url: 'http://127.0.0.1:8931/mcp', name: 'search' }).name).toBe('search')
  })
})
