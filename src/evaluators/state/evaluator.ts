import {
  AgentEvalOpsError,
  canonicalJson,
  type Evaluator,
  type EvaluatorFinding,
  type EvaluatorOutput,
  type JsonValue,
  type TaskSpec,
  type TraceEvent,
  type TrialView,
} from '../../core/index.ts'
import { compileChecks, type CompiledCheck, type StateCheck } from './checks.ts'
import { formatJsonPath, lookupJsonPath } from './json-path.ts'
import { PASSED_ENV, runCommand, type CommandResult } from '../../engine/index.ts'
import { MAX_READ_BYTES, readWorkspaceFile, realWorkspace, resolveInWorkspace } from './workspace.ts'

export interface StateBasedOptions {
  id?: string
  /** Fixed checks for every task; otherwise each task's `metadata.state_checks`. Validated when the evaluator is made. */
  checks?: StateCheck[]
  /** The directory to judge; otherwise the trial's `env.workdir`, as the benchmark prepared it. */
  workdir?: string
  /** Timeout of a `command` check that sets none of its own (default 60 s). */
  commandTimeoutMs?: number
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000

/** The task field checks are read from when the options give none. */
export const STATE_CHECKS_FIELD = 'state_checks'

const MAX_QUOTE = 120
const MAX_ARGV_CHARS = 200
/** How much of a command's output a finding shows; the rest stays out of scores.json. */
const MESSAGE_TAIL_CHARS = 2_000

type Outcome = { passed: true } | { passed: false; finding: EvaluatorFinding }

const PASS: Outcome = { passed: true }

function fail(type: string, message: string): Outcome {
  // The workspace has no trace steps; the score cites the terminal event instead.
  return { passed: false, finding: { type, message, citations: [] } }
}

/**
 * Judges what the agent left in its workspace once the trial is over: files that must (not) exist, their content,
 * values inside JSON files, and read-only commands such as a test suite. It only reads: it never writes, creates or
 * deletes anything (what `command` checks do is up to their author; keep them read-only).
 *
 * A failed check is a finding and lowers the score; only a broken configuration (no workspace, malformed checks)
 * throws. Score = passed checks / checks; passed = every check passed.
 */
export function stateBased(options: StateBasedOptions = {}): Evaluator {
  const id = options.id ?? 'state'
  const owner = `stateBased ${JSON.stringify(id)}`
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS
  if (!Number.isFinite(commandTimeoutMs) || commandTimeoutMs <= 0)
    throw new AgentEvalOpsError('CONFIG_INVALID', `${owner}: commandTimeoutMs must be a positive number`, {
      hint: 'Give commandTimeoutMs in milliseconds, e.g. 60000.',
    })
  // Fixed checks are compiled now, so a bad path, pattern or JSON path fails the configuration, not every trial.
  const fixed =
    options.checks === undefined
      ? undefined
      : compileChecks(options.checks, { owner, field: 'options.checks' })

  return {
    id,
    kind: 'state_based',
    async evaluate(view, ctx): Promise<EvaluatorOutput> {
      const checks = fixed ?? checksOfTask(view.task)
      const citations = terminalSteps(view.events)
      if (checks.length === 0) {
        return {
          score: 1,
          passed: true,
          costUsd: 0,
          explanation: `no state checks to run for task ${JSON.stringify(view.task.id)}: nothing to fail`,
          citations,
          findings: [],
        }
      }
      const root = await realWorkspace(workspaceOf(view, options.workdir))
      const signal = ctx?.signal
      const outcomes = await Promise.all(
        checks.map((check) => runCheck(check, root, { timeoutMs: commandTimeoutMs, signal })),
      )
      const findings = outcomes.flatMap((o) => (o.passed ? [] : [o.finding]))
      const passedCount = checks.length - findings.length
      const passed = findings.length === 0
      return {
        score: passedCount / checks.length,
        passed,
        costUsd: 0,
        explanation: passed
          ? checks.length === 1
            ? 'the state check passed'
            : `all ${checks.length} state checks passed`
          : `${passedCount} of ${plural(checks.length, 'state check')} passed; failed: ${findings.map((f) => f.type).join(', ')}`,
        citations,
        findings,
      }
    },
  }
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

function checksOfTask(task: TaskSpec): CompiledCheck[] {
  const raw = task.metadata[STATE_CHECKS_FIELD]
  if (raw === undefined) return []
  return compileChecks(raw, {
    owner: `task ${JSON.stringify(task.id)}`,
    field: `metadata.${STATE_CHECKS_FIELD}`,
  })
}

function workspaceOf(view: TrialView, workdir: string | undefined): string {
  const dir = workdir ?? view.env.workdir
  if (typeof dir === 'string' && dir !== '') return dir
  throw new AgentEvalOpsError(
    'CONFIG_INVALID',
    `the benchmark prepared no workspace for task ${JSON.stringify(view.task.id)}, so there is no state to judge`,
    {
      hint: 'Return { workdir } from the benchmark’s prepare(), or pass stateBased({ workdir }) explicitly.',
    },
  )
}

/** The step of the trial's end: state is what the agent left there. */
function terminalSteps(events: readonly TraceEvent[]): number[] {
  const last = events.filter((e) => e.kind === 'agent.terminal').at(-1)
  return last ? [last.step] : []
}

interface RunOptions {
  timeoutMs: number
  signal: AbortSignal | undefined
}

async function runCheck(check: CompiledCheck, root: string, run: RunOptions): Promise<Outcome> {
  switch (check.type) {
    case 'command':
      return commandCheck(check, root, run)
    case 'file_exists':
    case 'file_absent':
      return existenceCheck(check, root)
    default:
      return contentCheck(check, root)
  }
}

const q = (path: string) => JSON.stringify(path)

async function existenceCheck(
  check: Extract<CompiledCheck, { type: 'file_exists' | 'file_absent' }>,
  root: string,
): Promise<Outcome> {
  const resolved = await resolveInWorkspace(root, check.path)
  switch (resolved.kind) {
    case 'escapes':
      return escaped(check.path, resolved.real)
    case 'missing':
      return check.type === 'file_absent'
        ? PASS
        : fail('file_missing', `${q(check.path)} does not exist in the workspace`)
    case 'unresolvable':
      return check.type === 'file_absent'
        ? fail(
            'file_present',
            `${q(check.path)} should be absent, but an entry that cannot be resolved is there (${resolved.reason})`,
          )
        : fail('file_missing', `${q(check.path)} cannot be resolved (${resolved.reason})`)
    case 'inside':
      return check.type === 'file_exists'
        ? PASS
        : fail('file_present', `${q(check.path)} should be absent, but it exists`)
  }
}

function escaped(path: string, real: string): Outcome {
  return fail(
    'path_escapes_workspace',
    `${q(path)} resolves to ${q(real)}, outside the workspace (through a symlink); it was not read`,
  )
}

type ContentCheck = Extract<CompiledCheck, { type: 'file_equals' | 'file_matches' | 'json_path_equals' }>

/** The finding type a file's content fails with when it cannot even be read as wanted. */
const UNREADABLE_TYPE: Record<ContentCheck['type'], string> = {
  file_equals: 'content_mismatch',
  file_matches: 'no_match',
  json_path_equals: 'invalid_json',
}

async function contentCheck(check: ContentCheck, root: string): Promise<Outcome> {
  const resolved = await resolveInWorkspace(root, check.path)
  if (resolved.kind === 'escapes') return escaped(check.path, resolved.real)
  if (resolved.kind === 'missing')
    return fail('file_missing', `${q(check.path)} does not exist in the workspace`)
  if (resolved.kind === 'unresolvable')
    return fail('file_missing', `${q(check.path)} cannot be resolved (${resolved.reason})`)
  const read = await readWorkspaceFile(resolved.real)
  switch (read.kind) {
    case 'not_a_file':
      return fail('file_missing', `${q(check.path)} is ${read.what}, not a file`)
    case 'unreadable':
      return fail('file_missing', `${q(check.path)} cannot be read (${read.reason})`)
    case 'too_large':
      return fail(
        UNREADABLE_TYPE[check.type],
        `${q(check.path)} is ${read.size} bytes; files over ${MAX_READ_BYTES} bytes are not read`,
      )
    case 'text':
      return judgeContent(check, read.text)
  }
}

function judgeContent(check: ContentCheck, text: string): Outcome {
  switch (check.type) {
    case 'file_equals': {
      const want = check.trim ? check.content.trim() : check.content
      const got = check.trim ? text.trim() : text
      return got === want ? PASS : fail('content_mismatch', describeMismatch(check.path, want, got))
    }
    case 'file_matches':
      // A global or sticky regex keeps lastIndex between calls; reset it so every trial is judged alike.
      check.regex.lastIndex = 0
      return check.regex.test(text)
        ? PASS
        : fail(
            'no_match',
            `${q(check.path)} has no match for ${String(check.regex)}; it starts ${excerpt(text, 0)} (${text.length} chars)`,
          )
    case 'json_path_equals':
      return judgeJson(check, text)
  }
}

function judgeJson(check: Extract<CompiledCheck, { type: 'json_path_equals' }>, text: string): Outcome {
  let document: JsonValue
  try {
    document = JSON.parse(text) as JsonValue
  } catch (e) {
    return fail(
      'invalid_json',
      `${q(check.path)} is not valid JSON (${e instanceof Error ? e.message : String(e)}); it starts ${excerpt(text, 0)}`,
    )
  }
  const found = lookupJsonPath(document, check.segments)
  const where = formatJsonPath(check.segments)
  if (!found.found)
    return fail('json_path_missing', `${q(check.path)} has no value at ${where}: ${found.reason}`)
  const want = canonicalJson(check.value)
  const got = canonicalJson(found.value)
  return want === got
    ? PASS
    : fail('json_value_mismatch', `${q(check.path)} at ${where}: expected ${quote(want)}, got ${quote(got)}`)
}

function quote(text: string): string {
  return JSON.stringify(text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}…` : text)
}

/** A quoted window of `text` from a little before `at`, so the reader sees the difference in its context. */
function excerpt(text: string, at: number): string {
  const start = Math.max(0, at - 20)
  const end = start + MAX_QUOTE
  return JSON.stringify(`${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`)
}

function describeMismatch(path: string, want: string, got: string): string {
  let at = 0
  const common = Math.min(want.length, got.length)
  while (at < common && want[at] === got[at]) at++
  const before = got.slice(0, at)
  const line = before.split('\n').length
  const column = at - before.lastIndexOf('\n')
  return (
    `${q(path)} differs from the expected content at line ${line}, column ${column}: ` +
    `expected ${excerpt(want, at)}, got ${excerpt(got, at)} (${want.length} vs ${got.length} chars)`
  )
}

/** Shell-like, for reading only (the command never goes through a shell); cut so an inline script cannot bloat it. */
function showArgv(argv: readonly string[]): string {
  const text = argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')
  return text.length > MAX_ARGV_CHARS ? `${text.slice(0, MAX_ARGV_CHARS)}…` : text
}

function tails(result: CommandResult): string {
  const streams = [
    ['stderr', result.stderrTail, result.stderrBytes],
    ['stdout', result.stdoutTail, result.stdoutBytes],
  ] as const
  return streams
    .filter(([, tail]) => tail.trim() !== '')
    .map(([name, tail, bytes]) => {
      const cut = tail.length > MESSAGE_TAIL_CHARS || bytes > Buffer.byteLength(tail)
      return `\n--- ${name}${cut ? ' (end)' : ''} ---\n${tail.slice(-MESSAGE_TAIL_CHARS).trimEnd()}`
    })
    .join('')
}

async function commandCheck(
  check: Extract<CompiledCheck, { type: 'command' }>,
  root: string,
  run: RunOptions,
): Promise<Outcome> {
  const timeoutMs = check.timeoutMs ?? run.timeoutMs
  const result = await runCommand(check.argv, { cwd: root, timeoutMs, signal: run.signal })
  const shown = `command \`${showArgv(check.argv)}\``
  switch (result.outcome) {
    case 'aborted':
      throw new AgentEvalOpsError('RUN_ABORTED', `${shown} was stopped: the run was cancelled`)
    case 'failed_to_start':
      return fail(
        'command_failed',
        `${shown} could not start (${result.error ?? 'unknown error'}): check that ${q(check.argv[0] ?? '')} is ` +
          `installed and on PATH; the command sees only ${PASSED_ENV.join(', ')} of the environment`,
      )
    case 'timeout':
      return fail(
        'command_timeout',
        `${shown} did not finish within ${timeoutMs} ms; its process group was killed${tails(result)}`,
      )
    case 'exited':
      if (result.exitCode === check.expectExitCode) return PASS
      return fail(
        'exit_code_mismatch',
        `${shown} ${result.exitCode === null ? `was killed by ${result.signal ?? 'a signal'}` : `exited with code ${result.exitCode}`}, expected ${check.expectExitCode}${tails(result)}`,
      )
  }
}
