import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  AgentEvalOpsError,
  type EnvHandle,
  type EvaluatorFinding,
  type GradeContext,
  type GradeOutput,
  type TaskSpec,
  type TrialView,
} from '../../core/index.ts'
import { runCommand, type CommandResult } from '../../engine/index.ts'
import { git, lastLines, runGit } from './git.ts'
import { RepoExpected } from './instances.ts'
import { parseTestOutput, type TestStatus } from './test-output.ts'
import { applyTestPatch } from './test-patch.ts'
import { isDirectory, withTempDir, type RepoEnv } from './worktree.ts'

/** The finding types grade() reports: one finding per failing or missing test, or one for the whole run. */
export const REPO_FINDING_TYPES = [
  'fail_to_pass_failed',
  'pass_to_pass_failed',
  'test_missing',
  'test_patch_conflict',
  'tests_timed_out',
] as const
export type RepoFindingType = (typeof REPO_FINDING_TYPES)[number]

/** How much of the test run's output is kept and parsed: a large suite's report, not an endless log. */
export const TEST_OUTPUT_BYTES = 8 * 1024 * 1024

/** A broken build fails every test: the record names this many, and the explanation counts them all. */
export const MAX_FINDINGS = 50

export interface GradeSettings {
  testTimeoutSeconds: number
}

/**
 * SWE-bench's "resolved": the agent's diff is saved as `patch.diff`, the instance's test patch applied on top, the
 * test command run, and the trial passes iff every FAIL_TO_PASS and every PASS_TO_PASS test passed (score 1, else 0).
 */
export async function gradeRepoTrial(
  view: TrialView,
  ctx: GradeContext,
  settings: GradeSettings,
): Promise<GradeOutput> {
  const env = repoEnvOf(view.env)
  const expected = repoExpectedOf(view.task)
  const { signal } = ctx

  const diff = await agentDiff(env, signal)
  const files = countFiles(diff)
  let patchNote = 'the agent changed no file (no patch.diff)'
  if (diff.length > 0) {
    await ctx.saveArtifact('patch.diff', diff)
    patchNote = `the agent's diff (${files} file${files === 1 ? '' : 's'}) is in patch.diff`
  }

  if (expected.test_patch.trim() !== '') {
    const tests = await applyTestPatch(env, view.task.id, expected.test_patch, signal)
    if (!tests.applied) {
      return {
        score: 0,
        passed: false,
        explanation: `not resolved: the test patch does not apply on top of the agent's changes; ${patchNote}`,
        findings: [{ type: 'test_patch_conflict', message: tests.why, citations: [] }],
      }
    }
    if (tests.discarded.length > 0) {
      const names = tests.discarded.slice(0, 5).join(', ') + (tests.discarded.length > 5 ? ', …' : '')
      patchNote += `; its edits of ${tests.discarded.length} file${tests.discarded.length === 1 ? '' : 's'} the test patch touches (${names}) were reset to base_commit before the tests, as SWE-bench does`
    }
  }

  const run = await runCommand(expected.test_command, {
    cwd: env.workdir,
    timeoutMs: settings.testTimeoutSeconds * 1000,
    signal,
    maxTailBytes: TEST_OUTPUT_BYTES,
  })
  if (run.outcome === 'failed_to_start') {
    throw new AgentEvalOpsError(
      'INFRA_FAILURE',
      `the test command ${JSON.stringify(expected.test_command)} could not start: ${run.error ?? 'unknown error'}`,
      { hint: "Install what it needs, or fix the instance's test_command (an argv list; no shell)." },
    )
  }
  if (run.outcome === 'aborted') {
    throw signal.reason instanceof Error
      ? signal.reason
      : new AgentEvalOpsError('INFRA_FAILURE', 'grading was cancelled while the tests ran', {
          hint: 'Run the trial again.',
        })
  }
  if (run.outcome === 'timeout') {
    const message = `the test command did not finish within ${settings.testTimeoutSeconds} s and was stopped: the code under test may hang`
    return {
      score: 0,
      passed: false,
      explanation: `not resolved: ${message}; ${patchNote}`,
      findings: [{ type: 'tests_timed_out', message, citations: [] }],
    }
  }
  return decide(expected, run, patchNote, ctx)
}

function decide(
  expected: RepoExpected,
  run: CommandResult,
  patchNote: string,
  ctx: GradeContext,
): GradeOutput {
  const truncated = run.stdoutBytes > TEST_OUTPUT_BYTES || run.stderrBytes > TEST_OUTPUT_BYTES
  const outcomes = parseTestOutput(
    `${keptLines(run.stdoutTail, run.stdoutBytes)}\n${keptLines(run.stderrTail, run.stderrBytes)}`,
    expected.test_output_format,
  )
  const failed: EvaluatorFinding[] = []
  const missing: EvaluatorFinding[] = []
  const check = (list: 'FAIL_TO_PASS' | 'PASS_TO_PASS', name: string): boolean => {
    const status: TestStatus | undefined = outcomes.get(name)
    if (status === 'passed') return true
    if (status === undefined) {
      const cut = truncated
        ? ` (only the last ${TEST_OUTPUT_BYTES / 1024 / 1024} MiB of output are kept: it may be cut off)`
        : ''
      missing.push({
        type: 'test_missing',
        message: `${list} test ${name} is not in the test output${cut}`,
        citations: [],
      })
    } else if (list === 'FAIL_TO_PASS') {
      failed.push({
        type: 'fail_to_pass_failed',
        message: `FAIL_TO_PASS test ${name} ${status === 'skipped' ? 'was skipped' : 'failed'}: the fix must make it pass`,
        citations: [],
      })
    } else {
      failed.push({
        type: 'pass_to_pass_failed',
        message: `PASS_TO_PASS test ${name} ${status === 'skipped' ? 'was skipped' : 'failed'}: it passed before the change and must still pass`,
        citations: [],
      })
    }
    return false
  }
  const f2p = expected.FAIL_TO_PASS.filter((name) => check('FAIL_TO_PASS', name)).length
  const p2p = expected.PASS_TO_PASS.filter((name) => check('PASS_TO_PASS', name)).length
  const resolved = failed.length === 0 && missing.length === 0
  if (truncated && missing.length > 0)
    ctx.warn(
      `repo grade: the test output was longer than the ${TEST_OUTPUT_BYTES / 1024 / 1024} MiB kept; ${missing.length} test(s) were not found in it`,
    )

  const counts = `FAIL_TO_PASS ${f2p}/${expected.FAIL_TO_PASS.length} and PASS_TO_PASS ${p2p}/${expected.PASS_TO_PASS.length} tests passed`
  if (resolved) return { score: 1, passed: true, explanation: `resolved: ${counts}; ${patchNote}` }
  const findings = [...failed, ...missing]
  const listed = findings.length > MAX_FINDINGS ? ` (the first ${MAX_FINDINGS} are listed)` : ''
  const none =
    outcomes.size === 0
      ? ` No test result was recognised in the ${expected.test_output_format} output; the command exited with ${run.exitCode ?? run.signal} and its output ends: ${lastLines(`${run.stdoutTail}\n${run.stderrTail}`)}`
      : ''
  return {
    score: 0,
    passed: false,
    explanation: `not resolved: ${counts} (${failed.length} failed, ${missing.length} missing from the output${listed}); ${patchNote}.${none}`,
    findings: findings.slice(0, MAX_FINDINGS),
  }
}

/** A tail that lost the start of its stream starts mid-line: that line is dropped rather than misread. */
function keptLines(tail: string, total: number): string {
  if (total <= TEST_OUTPUT_BYTES) return tail
  const newline = tail.indexOf('\n')
  return newline === -1 ? '' : tail.slice(newline + 1)
}

/** Everything the agent changed since the base commit, new files included, as a patch `git apply` takes. */
async function agentDiff(env: RepoEnv, signal: AbortSignal): Promise<Buffer> {
  await git(env.workdir, ['add', '-A'], { signal })
  return withTempDir(env.workdir, async (dir) => {
    const out = join(dir, 'patch.diff')
    await git(
      env.workdir,
      [
        'diff',
        '--cached',
        '--binary',
        '--no-color',
        '--no-ext-diff',
        '--no-textconv',
        '--src-prefix=a/',
        '--dst-prefix=b/',
        `--output=${out}`,
        env.baseCommit,
        '--',
      ],
      { signal },
    )
    return readFile(out)
  })
}

function countFiles(diff: Buffer): number {
  return diff.toString('latin1').match(/^diff --git /gm)?.length ?? 0
}

/** Applies the instance's gold patch (`patch`) in the worktree: an oracle "agent" for tests and sanity runs. */
export async function applyGoldPatch(task: TaskSpec, env: EnvHandle, signal?: AbortSignal): Promise<void> {
  const { workdir } = env
  if (typeof workdir !== 'string' || !isDirectory(workdir)) {
    throw new AgentEvalOpsError('INFRA_FAILURE', 'applyGoldPatch: the env has no worktree (env.workdir)', {
      hint: "Call it with the env the repo benchmark's prepare() returned.",
    })
  }
  const { patch } = repoExpectedOf(task)
  if (patch === undefined || patch.trim() === '') {
    throw new AgentEvalOpsError('DATASET_INVALID', `instance ${JSON.stringify(task.id)} has no gold patch`, {
      hint: 'Give the instance a `patch` field (the reference fix) to run it with an oracle.',
    })
  }
  await withTempDir(workdir, async (dir) => {
    const patchFile = join(dir, 'gold.patch')
    await writeFile(patchFile, patch)
    const applied = await runGit(workdir, ['apply', patchFile], { signal })
    if (applied.outcome === 'exited' && applied.exitCode === 0) return
    if (applied.outcome !== 'exited') throw infraOf('git apply (gold patch)', applied, signal)
    throw new AgentEvalOpsError(
      'DATASET_INVALID',
      `the gold patch of instance ${JSON.stringify(task.id)} does not apply: ${lastLines(applied.stderrTail)}`,
      {
        hint: 'Fix the instance: patch must be a diff against base_commit, applied to an untouched worktree.',
      },
    )
  })
}

function infraOf(what: string, result: CommandResult, signal: AbortSignal | undefined): Error {
  if (result.outcome === 'aborted' && signal?.reason instanceof Error) return signal.reason
  return new AgentEvalOpsError(
    'INFRA_FAILURE',
    `${what} ${result.outcome === 'failed_to_start' ? `could not start: ${result.error ?? ''}` : result.outcome}`,
    { hint: 'The repo benchmark needs git on the PATH and the worktree prepare() made.' },
  )
}

/** The env prepare() returned, still on disk. */
export function repoEnvOf(env: TrialView['env']): RepoEnv {
  const { workdir, repoPath, baseCommit } = env
  if (typeof workdir !== 'string' || typeof repoPath !== 'string' || typeof baseCommit !== 'string') {
    throw new AgentEvalOpsError('INFRA_FAILURE', 'the trial has no worktree to grade', {
      hint: "The repo benchmark grades the worktree its prepare() made: run trials with the benchmark's prepare.",
    })
  }
  if (!isDirectory(workdir)) {
    throw new AgentEvalOpsError('INFRA_FAILURE', `the worktree ${workdir} is gone`, {
      hint: 'Something removed it before grading (the agent, or a cleanup of the temp folder).',
    })
  }
  return { ...env, workdir, repoPath, baseCommit }
}

export function repoExpectedOf(task: TaskSpec): RepoExpected {
  const parsed = RepoExpected.safeParse(task.expected)
  if (parsed.success) return parsed.data
  throw new AgentEvalOpsError(
    'DATASET_INVALID',
    `task ${JSON.stringify(task.id)} is not a repo task: expected.${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`,
    { hint: "Grade tasks with the benchmark that listed them (the repo benchmark's listTasks)." },
  )
}
