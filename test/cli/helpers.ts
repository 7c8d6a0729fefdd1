// Shared helpers of the CLI tests: run a command in process, and spawn bounded child processes.
import { spawn } from 'node:child_process'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { expect } from 'vitest'
import { main } from '../../src/cli/main.ts'
import type { CliIO } from '../../src/cli/io.ts'

export function recorder(): CliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = []
  const stderr: string[] = []
  return { stdout, stderr, out: (line) => void stdout.push(line), err: (line) => void stderr.push(line) }
}

export interface CliResult {
  code: number
  stdout: string
  stderr: string
  lines: string[]
}

/** `agentevalops …argv` in process: what it printed, one io.out call per element of `lines`. */
export async function runCli(...argv: string[]): Promise<CliResult> {
  const io = recorder()
  const code = await main(argv, io)
  return { code, stdout: io.stdout.join('\n'), stderr: io.stderr.join('\n'), lines: io.stdout }
}

export interface ChildResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/**
 * The environment of a child: ours minus what a parent Vitest or npm set for itself and any AGENTEVALOPS_* setting
 * of the caller (the child must use its defaults), without colours.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(VITEST|AGENTEVALOPS_|npm_)/i.test(name) || name === 'FORCE_COLOR' || name === 'NODE_OPTIONS')
      continue
    env[name] = value
  }
  return { ...env, NO_COLOR: '1', ...extra }
}

/**
 * Runs `node …args` in `cwd` in its own process group, so that on timeout the whole group (Vitest's workers too) is
 * killed; always resolves, with a null code and SIGKILL when it had to be killed.
 */
export function runNode(args: readonly string[], cwd: string, timeoutMs: number): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args], {
      cwd,
      env: cleanEnv(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    const timer = setTimeout(killGroup, timeoutMs)
    child.once('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      killGroup() // workers left behind by a crashed parent
      resolve({ code, signal, stdout, stderr })
    })
  })
}

/** The package.json npm 11's `npm init -y` writes, verbatim apart from the name: note "type": "commonjs". */
export function npmInitPackageJson(name: string): Record<string, unknown> {
  return {
    name,
    version: '1.0.0',
    description: '',
    main: 'index.js',
    scripts: { test: 'echo "Error: no test specified" && exit 1' },
    keywords: [],
    author: '',
    license: 'ISC',
    type: 'commonjs',
  }
}

/** `runsDir` holds one bundle, `name`, and validate-bundle passes it without a word on stderr. */
export async function expectOneValidBundle(runsDir: string, name: string): Promise<void> {
  expect(await readdir(runsDir)).toEqual([name])
  const validated = await runCli('validate-bundle', join(runsDir, name))
  expect(validated.stderr).toBe('')
  expect(validated.code).toBe(0)
}
