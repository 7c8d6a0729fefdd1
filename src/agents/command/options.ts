import { AgentEvalOpsError } from '../../core/index.ts'

export const COMMAND_FORMATS = ['generic', 'stream-json'] as const
export type CommandFormat = (typeof COMMAND_FORMATS)[number]

export interface CommandRunnerOptions {
  /**
   * The program and its arguments, run without a shell. `{prompt}`, `{task_id}` and `{workdir}` anywhere in an
   * element are replaced per task; other braces are left as they are.
   */
  argv: readonly string[]
  /** How stdout's JSON lines map to trace events (docs/command-runner.md). Default `generic`. */
  format?: CommandFormat
  /** Where the command runs. Default: the task's workspace (`env.workdir`), else a fresh temp dir removed afterwards. */
  cwd?: string
  /** Extra variables for the command; they win over passed-through ones. Their values never reach runnerInfo. */
  env?: Readonly<Record<string, string>>
  /** Names of the harness's variables passed through. Replaces the default list (DEFAULT_PASS_ENV), not added to it. */
  passEnv?: readonly string[]
  /** `prompt` (default): the task prompt is written to stdin, which is then closed. `none`: stdin is /dev/null. */
  stdin?: 'prompt' | 'none'
  name?: string
  /** Where each trial's stdout/stderr files go (a fresh folder per trial inside it). Default: the OS temp dir. */
  artifactsDir?: string
  /** After SIGTERM to the process group, how long before SIGKILL. Default 2000. */
  killGraceMs?: number
  /** How much of each of stdout and stderr is kept on disk. Default 50 MiB. */
  maxOutputBytes?: number
}

/** What a command gets of the harness's environment unless `passEnv` says otherwise: no credentials. */
export const DEFAULT_PASS_ENV: readonly string[] = ['PATH', 'HOME', 'LANG', 'TMPDIR', 'TERM']

export const DEFAULT_KILL_GRACE_MS = 2_000
export const DEFAULT_MAX_OUTPUT_BYTES = 50 * 1024 * 1024

export interface ResolvedOptions {
  argv: readonly string[]
  format: CommandFormat
  cwd: string | undefined
  env: Readonly<Record<string, string>>
  passEnv: readonly string[]
  stdin: 'prompt' | 'none'
  name: string | undefined
  artifactsDir: string | undefined
  killGraceMs: number
  maxOutputBytes: number
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Every problem that does not depend on a task is found here, when the runner is made, as CONFIG_INVALID. */
export function resolveOptions(options: CommandRunnerOptions): ResolvedOptions {
  const bad = (message: string, hint?: string): never => {
    throw new AgentEvalOpsError('CONFIG_INVALID', `commandRunner: ${message}`, hint ? { hint } : {})
  }
  const { argv } = options
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string'))
    bad('argv must be a non-empty array of strings', 'e.g. argv: ["claude", "-p", "{prompt}"]')
  if (argv[0] === '') bad('argv[0] (the program) is empty')
  const format = options.format ?? 'generic'
  if (!COMMAND_FORMATS.includes(format))
    bad(`unknown format ${JSON.stringify(format)}`, `Use one of ${COMMAND_FORMATS.join(', ')}.`)
  const stdin = options.stdin ?? 'prompt'
  if (stdin !== 'prompt' && stdin !== 'none')
    bad(`stdin must be "prompt" or "none", got ${JSON.stringify(stdin)}`)
  const passEnv = [...(options.passEnv ?? DEFAULT_PASS_ENV)]
  for (const name of passEnv)
    if (!ENV_NAME.test(name)) bad(`passEnv: ${JSON.stringify(name)} is not a variable name`)
  const env = { ...(options.env ?? {}) }
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name)) bad(`env: ${JSON.stringify(name)} is not a variable name`)
    // The name only: the value may be a secret.
    if (typeof value !== 'string') bad(`env.${name} must be a string`)
  }
  if (options.cwd !== undefined && (typeof options.cwd !== 'string' || options.cwd === ''))
    bad('cwd must be a path')
  if (
    options.artifactsDir !== undefined &&
    (typeof options.artifactsDir !== 'string' || options.artifactsDir === '')
  )
    bad('artifactsDir must be a path')
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS
  if (!Number.isFinite(killGraceMs) || killGraceMs < 0)
    bad('killGraceMs must be a number of milliseconds ≥ 0')
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES
  if (!Number.isInteger(maxOutputBytes) || maxOutputBytes < 0)
    bad('maxOutputBytes must be a whole number ≥ 0')
  if (options.name !== undefined && (typeof options.name !== 'string' || options.name === ''))
    bad('name must be a non-empty string')
  return {
    argv: [...argv],
    format,
    cwd: options.cwd,
    env,
    passEnv,
    stdin,
    name: options.name,
    artifactsDir: options.artifactsDir,
    killGraceMs,
    maxOutputBytes,
  }
}

/** The child's whole environment: the allowed names of the parent's, then the runner's own variables. */
export function childEnv(
  options: Pick<ResolvedOptions, 'env' | 'passEnv'>,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of options.passEnv) {
    const value = parent[name]
    if (value !== undefined) env[name] = value
  }
  return { ...env, ...options.env }
}

export interface Placeholders {
  prompt: string
  task_id: string
  workdir: string
}

const PLACEHOLDER = /\{(prompt|task_id|workdir)\}/g

/** One pass, so a prompt that itself contains `{workdir}` is passed as written, not expanded again. */
export function substituteArgv(argv: readonly string[], values: Placeholders): string[] {
  return argv.map((arg) => arg.replace(PLACEHOLDER, (_, key: keyof Placeholders) => values[key]))
}
