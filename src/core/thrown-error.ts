import { existsSync, readFileSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Redactor } from './redaction.ts'
import type { ThrownError } from './schemas.ts'

/**
 * What a runner, an evaluator or a benchmark's prepare threw, as the bundle keeps it: enough to debug a crash from
 * the bundle alone. The stack keeps the user's frames only: Node's internals, installed packages (Vitest among
 * them) and this package's own code say nothing the user can act on, and this package's frames would name
 * `src/*.ts` files that the published package does not ship.
 */

/** More than this many user frames is noise: the top of the stack is where the crash is. */
export const MAX_STACK_FRAMES = 20

/**
 * A message longer than this is cut: the record rides Vitest's task meta and must stay small. The whole message is
 * the result's (or the score's) `error`.
 */
export const MAX_THROWN_MESSAGE = 4000

/** The folders of this package that hold its code, as shipped (dist, bin) and as developed (src, plugin, reporters). */
const OWN_CODE_FOLDERS = ['src', 'dist', 'plugin', 'reporters', 'bin']

export function describeThrown(error: unknown, redactor?: Redactor): ThrownError {
  const redact = (text: string): string => (redactor ? redactor.string(text) : text)
  const message = (text: string): string => {
    const redacted = redact(text)
    if (redacted.length <= MAX_THROWN_MESSAGE) return redacted
    return `${redacted.slice(0, MAX_THROWN_MESSAGE)}… [${redacted.length - MAX_THROWN_MESSAGE} more characters]`
  }
  if (!(error instanceof Error)) {
    return {
      type: error === null ? 'null' : typeof error,
      message: message(typeof error === 'string' ? error : safeString(error)),
      stack: [],
    }
  }
  const code = (error as { code?: unknown }).code
  return {
    type: typeOf(error),
    ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}),
    message: message(error.message),
    stack: userFrames(typeof error.stack === 'string' ? error.stack : '').map(redact),
  }
}

/** `TypeError`, `MyError` for `class MyError extends Error {}`, `AbortError` for a DOMException so named. */
function typeOf(error: Error): string {
  const ctor = (error as { constructor?: unknown }).constructor
  const ctorName = typeof ctor === 'function' && ctor.name ? ctor.name : undefined
  const name = typeof error.name === 'string' && error.name !== '' ? error.name : undefined
  if (name !== undefined && name !== 'Error') return name
  return ctorName ?? name ?? 'Error'
}

function safeString(value: unknown): string {
  try {
    if (value !== null && typeof value === 'object') {
      return JSON.stringify(value) ?? Object.prototype.toString.call(value)
    }
    return String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

/**
 * The frames of a V8 stack that are the user's, as `fn (path:line:col)` with `path` relative to the working
 * folder when it is inside it: never one of Node's, of node_modules or of this package.
 */
export function userFrames(stack: string, cwd: string = process.cwd()): string[] {
  const frames: string[] = []
  for (const line of stack.split('\n')) {
    const frame = /^\s+at (.*)$/.exec(line)?.[1]
    if (frame === undefined) continue
    const parsed = parseFrame(frame)
    if (!parsed || !isUserFile(parsed.file)) continue
    const file = shortPath(parsed.file, cwd)
    frames.push(parsed.fn ? `${parsed.fn} (${file}${parsed.position})` : `${file}${parsed.position}`)
    if (frames.length === MAX_STACK_FRAMES) break
  }
  return frames
}

interface Frame {
  fn: string | undefined
  /** An absolute path (a file URL is turned into one). */
  file: string
  /** `:line:col`, or '' when the frame has none. */
  position: string
}

function parseFrame(frame: string): Frame | undefined {
  // `fn (location)` or a bare `location`; `eval at …` frames name the evaluating file last.
  const wrapped = /^(.*?) \((.*)\)$/.exec(frame)
  const fn = wrapped ? wrapped[1] : undefined
  // A bare frame of an async function reads `async file:…`.
  let location = wrapped ? wrapped[2]! : frame.replace(/^async /, '')
  const evalAt = /, (\S+)\)*$/.exec(location)
  if (location.startsWith('eval at ') && evalAt) location = evalAt[1]!
  const at = /^(.*?)((?::\d+){1,2})$/.exec(location)
  let file = at ? at[1]! : location
  const position = at ? at[2]! : ''
  if (file.startsWith('file://')) {
    try {
      file = fileURLToPath(file)
    } catch {
      return undefined
    }
  }
  if (!isAbsolute(file)) return undefined // node:internal/…, native, <anonymous>, index 0
  return { fn, file, position }
}

function isUserFile(file: string): boolean {
  const normalized = file.split(sep).join('/')
  if (normalized.includes('/node_modules/')) return false
  const root = ownRoot()
  if (root === undefined) return true
  const rel = relative(root, file).split(sep)
  return !(rel[0] !== '..' && !isAbsolute(rel.join('/')) && OWN_CODE_FOLDERS.includes(rel[0]!))
}

function shortPath(file: string, cwd: string): string {
  const rel = relative(cwd, file)
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : file
}

let root: string | null | undefined

/** This package's folder: the nearest one above this module with our package.json (src/core/ or dist/). */
function ownRoot(): string | undefined {
  if (root === undefined) root = findOwnRoot(dirname(fileURLToPath(import.meta.url)))
  return root ?? undefined
}

function findOwnRoot(start: string): string | null {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'agentevalops')
          return dir
      } catch {
        // An unreadable package.json above us is not ours; go on up.
      }
    }
    if (dirname(dir) === dir) return null
  }
}
