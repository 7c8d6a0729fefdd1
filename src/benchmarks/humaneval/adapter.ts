import * as z from 'zod'
import {
  AgentEvalOpsError,
  defineTask,
  matchesTaskFilter,
  parseAdapterInput,
  type BenchmarkAdapter,
  type EvaluatorFinding,
  type GradeContext,
  type GradeOutput,
  type JsonObject,
  type TaskSpec,
  type TrialView,
} from '../../core/index.ts'
import { executeCheck, resolvePython, type HumanEvalCheck } from './execute.ts'
import { checkProgram, completionFrom } from './program.ts'
import { readHumanEval, type HumanEvalDataset, type HumanEvalProblem } from './problems.ts'
import { shippedHumanEvalPath } from './shipped.ts'

export const HUMANEVAL_BENCHMARK_ID = 'humaneval'
/** The adapter's version: bump when the task wording or the grading changes meaning. */
export const HUMANEVAL_ADAPTER_VERSION = '1'

/** The benchmark's options, as a RunConfig gives them (snake_case). */
export const HumanEvalOptions = z.strictObject({
  /** HumanEval.jsonl.gz (or .jsonl); default: the copy the package ships (datasets/humaneval/). */
  path: z.string().min(1).optional(),
  id: z.string().min(1).default(HUMANEVAL_BENCHMARK_ID),
  /** The interpreter that runs the checks. */
  python: z.string().min(1).default('python3'),
  /** Per check; upstream uses 3 s in-process, a fresh interpreter under load needs more. */
  timeout_seconds: z.number().positive().max(3600).default(10),
  /** Address-space cap of a check's process. */
  memory_mb: z.number().int().min(64).default(1024),
  /** Only these task ids, in this order. */
  ids: z.array(z.string().min(1)).min(1).optional(),
  /** The first `limit` tasks (after `ids`). */
  limit: z.number().int().positive().optional(),
})
export type HumanEvalOptions = z.input<typeof HumanEvalOptions>

/** What grading needs of a problem; it rides in the task's `expected`, so the task checksum covers the tests. */
export interface HumanEvalExpected {
  canonical_solution: string
  test: string
  entry_point: string
}

/**
 * OpenAI's HumanEval (164 Python problems) with upstream's grading: prompt + completion + the problem's tests +
 * `check(entry_point)`, executed in a fresh Python process with a timeout. See docs/benchmarks/humaneval.md.
 */
export function humanEvalBenchmark(input: HumanEvalOptions = {}): BenchmarkAdapter {
  const parsed = parseAdapterInput(
    HumanEvalOptions,
    input,
    'benchmark "humaneval"',
    'Options: path (default: the shipped copy), id, python, timeout_seconds, memory_mb, ids, limit.',
  )
  const options = { ...parsed, path: parsed.path ?? shippedHumanEvalPath() }
  let loaded: Promise<{ dataset: HumanEvalDataset; tasks: TaskSpec[] }> | undefined
  const load = () => {
    loaded ??= readHumanEval(options.path).then((dataset) => ({
      dataset,
      tasks: select(dataset.problems, options).map((p) => toTask(options.id, p)),
    }))
    return loaded
  }

  return {
    id: options.id,
    version: HUMANEVAL_ADAPTER_VERSION,
    // Grading is a few checks' worth at most; a hung grader is not the agent's fault and must not stall the run.
    gradeTimeoutSeconds: options.timeout_seconds + 60,
    async listTasks(filter?: JsonObject) {
      const { tasks } = await load()
      return filter ? tasks.filter((t) => matchesTaskFilter(t, filter)) : tasks
    },
    async info() {
      const { dataset, tasks } = await load()
      const selection: JsonObject = { taskCount: tasks.length }
      if (options.ids) selection.ids = options.ids
      if (options.limit !== undefined) selection.limit = options.limit
      return {
        id: options.id,
        version: HUMANEVAL_ADAPTER_VERSION,
        datasetChecksum: dataset.checksum,
        selection,
      }
    },
    async grade(view: TrialView, ctx: GradeContext): Promise<GradeOutput> {
      const expected = expectedOf(view.task)
      const completion = completionFrom(view.result.finalAnswer)
      const check = await executeCheck({
        python: await resolvePython(options.python),
        program: checkProgram({ prompt: promptOf(view.task), ...expected }, completion),
        timeoutSeconds: Math.min(options.timeout_seconds, ctx.timeoutSeconds),
        memoryBytes: options.memory_mb * 1024 * 1024,
        signal: ctx.signal,
      })
      return scoreOf(check, completion)
    },
  }
}

function select(
  problems: HumanEvalProblem[],
  options: z.output<typeof HumanEvalOptions> & { path: string },
): HumanEvalProblem[] {
  let chosen = problems
  if (options.ids) {
    const byId = new Map(problems.map((p) => [p.task_id, p]))
    const unknown = options.ids.filter((id) => !byId.has(id))
    if (unknown.length > 0) {
      throw new AgentEvalOpsError(
        'CONFIG_INVALID',
        `humaneval ids: no task ${unknown.map((id) => JSON.stringify(id)).join(', ')} in ${options.path}`,
        { hint: `Task ids look like "HumanEval/0" … "HumanEval/${problems.length - 1}".` },
      )
    }
    chosen = options.ids.map((id) => byId.get(id)!)
  }
  return options.limit === undefined ? chosen : chosen.slice(0, options.limit)
}

const INSTRUCTION =
  'Complete the following Python function. Answer with Python code only: the body of the function, or the whole function.'

function toTask(benchmark: string, problem: HumanEvalProblem): TaskSpec {
  const expected: HumanEvalExpected = {
    canonical_solution: problem.canonical_solution,
    test: problem.test,
    entry_point: problem.entry_point,
  }
  return defineTask({
    id: problem.task_id,
    benchmark,
    prompt: `${INSTRUCTION}\n\n${problem.prompt}`,
    input: { code: problem.prompt, entry_point: problem.entry_point },
    expected: { ...expected },
    metadata: { split: 'test' },
  })
}

const Expected = z.object({ canonical_solution: z.string(), test: z.string(), entry_point: z.string() })

/** The grading material of a task this adapter made (a task from elsewhere is a bug of the caller). */
export function expectedOf(task: TaskSpec): HumanEvalExpected {
  const parsed = Expected.safeParse(task.expected)
  if (!parsed.success) {
    throw new AgentEvalOpsError('TASK_INVALID', `task ${task.id} carries no HumanEval tests`, {
      hint: 'Grade only tasks listed by humanEvalBenchmark().',
    })
  }
  return parsed.data
}

function promptOf(task: TaskSpec): string {
  const input = task.input as { code?: unknown } | undefined
  if (typeof input?.code !== 'string') {
    throw new AgentEvalOpsError('TASK_INVALID', `task ${task.id} carries no HumanEval prompt`, {
      hint: 'Grade only tasks listed by humanEvalBenchmark().',
    })
  }
  return input.code
}

function scoreOf(check: HumanEvalCheck, completion: string): GradeOutput {
  if (check.status === 'passed') {
    return { score: 1, passed: true, explanation: `passed (${check.durationMs} ms)` }
  }
  const findings: EvaluatorFinding[] = []
  if (completion.trim() === '') {
    findings.push({ type: 'no_answer', message: 'the answer holds no code', citations: [] })
  }
  findings.push({
    type: check.status === 'timed_out' ? 'timed_out' : 'tests_failed',
    message: check.detail,
    citations: [],
  })
  const output = check.stdoutTail.trim().split('\n').slice(-3).join('\n').slice(-300)
  return {
    score: 0,
    passed: false,
    explanation: output === '' ? check.detail : `${check.detail}; output ends: ${output}`,
    findings,
  }
}
