import { mkdir, open, readFile, rm, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import {
  AgentEvalOpsError,
  errorMessage,
  type EvaluatorFinding,
  type GradeContext,
  type GradeOutput,
  type TrialView,
} from '../../core/index.ts'
import { commandEnv, runCommand, type CommandResult } from '../../engine/index.ts'
import { TEST_SCRIPT, TESTS_DIR, type HarborExpected, type HarborTaskSource } from './task-folder.ts'
import { hashTree, listTree } from './tree.ts'
import { freshCopy, requireTrialPaths, type TrialPaths } from './workspace.ts'

/** The reward files a test may write into `$LOGS_DIR/verifier/`, in Harbor's order of precedence. */
export const REWARD_TXT = 'reward.txt'
export const REWARD_JSON = 'reward.json'
/** A reward file larger than this is not a reward. */
const MAX_REWARD_BYTES = 4096
/** Grading's own work around the test run (copying, reading the reward, the pipes' grace after a kill). */
const GRADE_OVERHEAD_SECONDS = 5
/** How much test output the explanation quotes; findings and the saved artifact keep more. */
const EXPLANATION_TAIL_CHARS = 400
const FINDING_TAIL_CHARS = 4000
/** Paths of Harbor's container that do not exist here: a test using them fails for a reason that is not the agent's. */
const CONTAINER_PATHS = ['/logs/verifier', '/tests/'] as const

/** The variables test.sh gets besides commandEnv()'s (PATH, HOME, LANG, TMPDIR). */
export interface VerifierEnv {
  /** The copy of the task's tests/ (Harbor: /tests). */
  TESTS_DIR: string
  /** The trial's log folder (Harbor: /logs); `$LOGS_DIR/verifier` exists and is empty when the tests start. */
  LOGS_DIR: string
  /** Where a reward goes: `$LOGS_DIR/verifier/reward.txt` (Harbor: /logs/verifier/reward.txt). */
  REWARD_FILE: string
  /** The agent's working directory, also the tests' cwd (Harbor: the image's WORKDIR, often /app). */
  WORKDIR: string
}

export type Reward =
  | { kind: 'none' }
  | { kind: 'valid'; value: number; file: string }
  | { kind: 'invalid'; reason: string; file: string }

/**
 * Grades one trial: copies tests/ next to the workspace, runs `bash tests/test.sh` in it (no other shell), and reads
 * the reward the tests wrote, if any. The rule (docs/benchmarks/harbor.md): the trial passes iff test.sh exits 0
 * and any reward it wrote is ≥ 1; the score is 1 when it passes, else the reward when there is a valid one (partial
 * credit), else 0. A test run that overruns the task's `[verifier] timeout_sec` scores 0 (`tests_timed_out`);
 * grading that cannot run at all (no bash, tests changed or missing, the harness's own time bound) throws.
 */
export async function gradeTrial(
  source: HarborTaskSource,
  view: TrialView,
  ctx: GradeContext,
): Promise<GradeOutput> {
  const paths = await requireTrialPaths(view.env, 'harbor grade')
  await stageTests(source, paths)
  await warnOnContainerPaths(paths, ctx)

  const { seconds, capped } = testTimeout(source.expected, ctx)
  if (capped)
    ctx.warn(
      `harbor: task ${source.id}'s verifier timeout (${source.expected.testTimeoutSeconds} s) is cut to ${seconds} s by the grade timeout`,
    )
  const env: VerifierEnv = {
    TESTS_DIR: paths.tests,
    LOGS_DIR: paths.logs,
    REWARD_FILE: join(paths.verifierLogs, REWARD_TXT),
    WORKDIR: paths.workdir,
  }
  const run = await runCommand(['bash', join(paths.tests, TEST_SCRIPT)], {
    cwd: paths.workdir,
    timeoutMs: Math.round(seconds * 1000),
    signal: ctx.signal,
    env: { ...commandEnv(), ...env },
  })
  await saveOutput(run, ctx)

  switch (run.outcome) {
    case 'failed_to_start':
      throw new AgentEvalOpsError(
        'INFRA_FAILURE',
        `harbor: could not run the tests with bash: ${run.error ?? ''}`,
        {
          hint: 'Install bash and make sure it is on PATH.',
        },
      )
    case 'aborted':
      throw ctx.signal.reason instanceof Error
        ? ctx.signal.reason
        : new AgentEvalOpsError('INFRA_FAILURE', 'harbor: grading was cancelled')
    case 'timeout':
      if (capped)
        throw new AgentEvalOpsError(
          'INFRA_FAILURE',
          `harbor: the tests of ${source.id} did not finish within the ${seconds} s grading allows`,
          {
            hint: `Raise grade_timeout_seconds above the task's verifier timeout (${source.expected.testTimeoutSeconds} s).`,
          },
        )
      return {
        score: 0,
        passed: false,
        explanation: `the tests did not finish within ${seconds} s (the task's verifier timeout)${tailNote(run)}`,
        findings: [finding('tests_timed_out', `test.sh ran longer than ${seconds} s and was killed`, run)],
      }
    case 'exited':
      return verdict(run, await readReward(paths.verifierLogs))
  }
}

/** The tests' time: the task's verifier timeout, bounded by what grading as a whole may take. */
export function testTimeout(
  expected: Pick<HarborExpected, 'testTimeoutSeconds'>,
  ctx: Pick<GradeContext, 'timeoutSeconds'>,
): { seconds: number; capped: boolean } {
  const bound =
    ctx.timeoutSeconds > 2 * GRADE_OVERHEAD_SECONDS
      ? ctx.timeoutSeconds - GRADE_OVERHEAD_SECONDS
      : ctx.timeoutSeconds / 2
  return bound < expected.testTimeoutSeconds
    ? { seconds: bound, capped: true }
    : { seconds: expected.testTimeoutSeconds, capped: false }
}

/** The rule, as a pure function of the exit and the reward (exported for its tests). */
export function verdict(
  run: Pick<CommandResult, 'exitCode' | 'signal' | 'stdoutTail' | 'stderrTail'>,
  reward: Reward,
): GradeOutput {
  const exited0 = run.exitCode === 0
  const how =
    run.exitCode !== null
      ? `test.sh exited with code ${run.exitCode}`
      : `test.sh was killed by ${run.signal ?? 'a signal'}`
  const findings: EvaluatorFinding[] = []
  let score: number
  let passed: boolean
  let explanation: string
  if (reward.kind === 'invalid') {
    passed = false
    score = 0
    explanation = `${how}, and its reward file is invalid: ${reward.reason}`
    findings.push(finding('reward_invalid', `${reward.file}: ${reward.reason}`, run))
  } else if (!exited0) {
    passed = false
    score = reward.kind === 'valid' && reward.value < 1 ? reward.value : 0
    explanation = reward.kind === 'valid' ? `${how} (reward ${reward.value})` : how
    findings.push(finding('tests_failed', how, run))
  } else if (reward.kind === 'valid') {
    passed = reward.value >= 1
    score = passed ? 1 : reward.value
    explanation = `${how} with reward ${reward.value}`
    if (!passed) findings.push(finding('reward_below_one', `reward ${reward.value} < 1`, run))
  } else {
    passed = true
    score = 1
    explanation = `${how} (no reward file)`
  }
  return { score, passed, explanation: `${explanation}${tailNote(run)}`, findings }
}

/** Reads `reward.txt` (a number), else `reward.json` (a number, or an object with a numeric `reward`, or one key). */
export async function readReward(dir: string): Promise<Reward> {
  for (const name of [REWARD_TXT, REWARD_JSON]) {
    const file = join(dir, name)
    const text = await readSmall(file)
    if (text === null) continue
    if (text.kind === 'too-large')
      return { kind: 'invalid', file, reason: `larger than ${MAX_REWARD_BYTES} bytes` }
    const value = name === REWARD_TXT ? parseRewardText(text.text) : parseRewardJson(text.text)
    if (typeof value === 'string') return { kind: 'invalid', file, reason: value }
    if (!(value >= 0 && value <= 1))
      return { kind: 'invalid', file, reason: `reward ${value} is outside [0, 1]` }
    return { kind: 'valid', value, file }
  }
  return { kind: 'none' }
}

/** The number, or why it is not one. */
function parseRewardText(text: string): number | string {
  const trimmed = text.trim()
  if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(trimmed))
    return `not a number: ${JSON.stringify(trimmed.slice(0, 40))}`
  return Number(trimmed)
}

function parseRewardJson(text: string): number | string {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return `not JSON: ${errorMessage(e)}`
  }
  if (typeof value === 'number') return value
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>
    const entries = Object.entries(record)
    if (entries.length === 0) return 'an empty object'
    const reward = entries.length === 1 ? entries[0]?.[1] : record.reward
    if (typeof reward === 'number') return reward
    if (entries.length === 1) return 'its one value is not a number'
    return Object.hasOwn(record, 'reward')
      ? '"reward" is not a number'
      : 'several rewards and none named "reward": the adapter needs one number'
  }
  return 'not a number or an object of rewards'
}

async function readSmall(
  file: string,
): Promise<{ kind: 'text'; text: string } | { kind: 'too-large' } | null> {
  let handle: FileHandle
  try {
    handle = await open(file, 'r')
  } catch {
    return null
  }
  try {
    const buffer = Buffer.alloc(MAX_REWARD_BYTES + 1)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    if (bytesRead > MAX_REWARD_BYTES) return { kind: 'too-large' }
    return { kind: 'text', text: buffer.subarray(0, bytesRead).toString('utf8') }
  } finally {
    await handle.close()
  }
}

/** A fresh tests/ copy and an empty logs folder: nothing the agent left there survives into grading. */
async function stageTests(source: HarborTaskSource, paths: TrialPaths): Promise<void> {
  const from = join(source.dir, TESTS_DIR)
  try {
    await freshCopy(from, paths.tests)
  } catch (e) {
    throw new AgentEvalOpsError('INFRA_FAILURE', `harbor: could not copy ${from}: ${errorMessage(e)}`, {
      hint: 'The task folder changed or went away during the run.',
    })
  }
  const copied = await hashTree(await listTree(paths.tests))
  if (copied !== source.expected.testsSha256)
    throw new AgentEvalOpsError('INFRA_FAILURE', `harbor: ${from} changed since the task was listed`, {
      hint: 'Do not edit a dataset while it runs; start the run again.',
    })
  await rm(paths.logs, { recursive: true, force: true })
  await mkdir(paths.verifierLogs, { recursive: true })
  // An agent that removed its own workspace fails the tests; it must not make grading look broken.
  await mkdir(paths.workdir, { recursive: true }).catch(() => undefined)
}

async function warnOnContainerPaths(paths: TrialPaths, ctx: GradeContext): Promise<void> {
  const script = await readFile(join(paths.tests, TEST_SCRIPT), 'utf8').catch(() => '')
  // Comments may well mention Harbor's paths; only code that uses them fails here.
  const code = script
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
  const used = CONTAINER_PATHS.filter((p) => code.includes(p))
  if (used.length > 0)
    ctx.warn(
      `harbor: tests/test.sh uses the container path(s) ${used.join(', ')}; locally use $TESTS_DIR, $LOGS_DIR and $REWARD_FILE`,
    )
}

/** Keeps the end of the tests' output as the trial's `harbor/test-output.txt`; a failure to save is only a warning. */
async function saveOutput(run: CommandResult, ctx: GradeContext): Promise<void> {
  const text = `# outcome: ${run.outcome}, exit code: ${run.exitCode ?? 'none'}${run.signal ? `, signal: ${run.signal}` : ''}\n# stdout (last ${run.stdoutTail.length} of ${run.stdoutBytes} bytes)\n${run.stdoutTail}\n# stderr (last ${run.stderrTail.length} of ${run.stderrBytes} bytes)\n${run.stderrTail}`
  try {
    await ctx.saveArtifact('harbor/test-output.txt', text)
  } catch (e) {
    ctx.warn(`harbor: could not save the test output: ${errorMessage(e)}`)
  }
}

function combinedTail(run: Pick<CommandResult, 'stdoutTail' | 'stderrTail'>, chars: number): string {
  const both = [run.stdoutTail.trimEnd(), run.stderrTail.trimEnd()].filter((s) => s !== '').join('\n')
  return both.length > chars ? `…${both.slice(-chars)}` : both
}

function tailNote(run: Pick<CommandResult, 'stdoutTail' | 'stderrTail'>): string {
  const tail = combinedTail(run, EXPLANATION_TAIL_CHARS)
  return tail === '' ? '' : `; output ends: ${tail}`
}

function finding(
  type: string,
  what: string,
  run: Pick<CommandResult, 'stdoutTail' | 'stderrTail'>,
): EvaluatorFinding {
  const tail = combinedTail(run, FINDING_TAIL_CHARS)
  return { type, message: tail === '' ? what : `${what}\n${tail}`, citations: [] }
}
