import { isIP } from 'node:net'

/** Where the server listens, as a browser's Host header may name it. */
export interface BoundAddress {
  /** The --host asked for (127.0.0.1 by default). */
  host: string
  port: number
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]'])

/** Whether `host` is a loopback address or name: only then is the server reachable from this machine alone. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '')
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'))
}

/**
 * Whether a request's Host header names this server: localhost, the loopback addresses or the bound host, at the
 * bound port. A page on another site that rebinds its own name to 127.0.0.1 (DNS rebinding) sends that name, and
 * is refused; so is any name but these. Bound to every interface (0.0.0.0, ::), an address literal is accepted too.
 */
export function isAllowedHost(header: string | undefined, bound: BoundAddress): boolean {
  if (!header) return false
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d+))?$/.exec(header.trim())
  if (!match) return false
  const name = match[1]!.toLowerCase()
  const port = match[2] === undefined ? 80 : Number(match[2])
  if (port !== bound.port) return false
  const boundName = isIP(bound.host) === 6 ? `[${bound.host.toLowerCase()}]` : bound.host.toLowerCase()
  if (LOOPBACK_NAMES.has(name) || name === boundName) return true
  const anyInterface = bound.host === '0.0.0.0' || bound.host === '::'
  return anyInterface && isIP(name.replace(/^\[|\]$/g, '')) !== 0
}
