import { AgentEvalOpsError } from '../../core/index.ts'
import { commandEnv, MAX_TAIL_BYTES, runCommand, type CommandResult } from '../../engine/index.ts'

/** Git operations (a checkout of a big repository included) get this long; grading is bounded by its signal too. */
const GIT_TIMEOUT_MS = 5 * 60_000

/**
 * git's environment: the harness's allow-list (no secrets, and no GIT_DIR or GIT_INDEX_FILE of a hook we run in),
 * no system config, no prompts, messages in English.
 */
export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...commandEnv(),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    ...extra,
  }
}

export interface GitOptions {
  signal?: AbortSignal | undefined
  /** Extra environment, e.g. GIT_INDEX_FILE. */
  env?: Record<string, string>
  /** How much of stdout is kept; git() fails rather than return a cut list (default MAX_TAIL_BYTES). */
  maxOutputBytes?: number
}

/** Runs `git -C cwd …` without a shell, its hooks off (a repository's post-checkout hook is not ours to run). */
export function runGit(
  cwd: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<CommandResult> {
  return runCommand(['git', '-c', 'core.hooksPath=/dev/null', '-C', cwd, ...args], {
    cwd,
    timeoutMs: GIT_TIMEOUT_MS,
    env: gitEnv(options.env),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.maxOutputBytes ? { maxTailBytes: options.maxOutputBytes } : {}),
  })
}

/** Like runGit, but anything other than exit code 0 throws INFRA_FAILURE (an abort throws the signal's reason). */
export async function git(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<string> {
  const result = await runGit(cwd, args, options)
  if (result.outcome === 'exited' && result.exitCode === 0) {
    if (result.stdoutBytes <= (options.maxOutputBytes ?? MAX_TAIL_BYTES)) return result.stdoutTail
    throw new AgentEvalOpsError(
      'INFRA_FAILURE',
      `git ${args.slice(0, 2).join(' ')} printed ${result.stdoutBytes} bytes, more than the ${options.maxOutputBytes ?? MAX_TAIL_BYTES} read`,
      { hint: 'The repository or patch is larger than the repo benchmark reads; please report it.' },
    )
  }
  throw gitFailure(args, result, options.signal)
}

export function gitFailure(args: readonly string[], result: CommandResult, signal?: AbortSignal): Error {
  if (result.outcome === 'aborted' && signal?.reason instanceof Error) return signal.reason
  const what = `git ${args.slice(0, 2).join(' ')}`
  if (result.outcome === 'failed_to_start') {
    return new AgentEvalOpsError(
      'INFRA_FAILURE',
      `${what} could not start: ${result.error ?? 'unknown error'}`,
      {
        hint: 'The repo benchmark needs git on the PATH.',
      },
    )
  }
  const how =
    result.outcome === 'exited'
      ? `exited with ${result.exitCode ?? result.signal ?? 'no code'}`
      : result.outcome === 'timeout'
        ? 'timed out'
        : 'was aborted'
  return new AgentEvalOpsError('INFRA_FAILURE', `${what} ${how}: ${lastLines(result.stderrTail)}`, {
    hint: 'Check that the repository exists, is a git repository and has the commit; git said why above.',
  })
}

/** The end of a command's output, short enough for a message. */
export function lastLines(text: string, max = 6): string {
  const lines = text.trim().split('\n').slice(-max)
  return lines.join(' | ').slice(-800) || '(no output)'
}
