import type { z } from 'zod'
import { checksumOf } from './checksum.ts'
import { AgentEvalOpsError } from './errors.ts'
import type { JsonValue } from './json.ts'
import { describeJsonProblem, formatJsonPath, plainJsonProblems } from './plain-json.ts'
import { TaskSpec } from './schemas.ts'

export type TaskInput = Omit<TaskSpec, 'checksum' | 'metadata'> & { metadata?: TaskSpec['metadata'] }

const TaskContent = TaskSpec.omit({ checksum: true })

/** Beyond this many, the error counts the rest: a broken generator can make thousands of lines. */
const MAX_PROBLEM_LINES = 50

/**
 * Validates a task and stamps the checksum of its content, so a changed task is never mistaken for the old one.
 * `options.unseen` is what the task depends on without showing it (a dataset grader's settings): it changes the checksum,
 * and so makes a resumed run run the task again, but is not part of the spec.
 */
export function defineTask(input: TaskInput, options: { unseen?: JsonValue } = {}): TaskSpec {
  const content = { ...input, metadata: input.metadata ?? {} }
  // Checked before hashing: the hash is taken over JSON, which would drop or refuse what is not JSON. One check:
  // what it returns is the task as JSON has it (keys left undefined gone), which is what the checksum is taken over.
  const checked = checkedTask(content, TaskContent)
  if (!checked.ok) throw taskProblemsError(checked.problems)
  const { unseen } = options
  const checksum = checksumOf(unseen === undefined ? content : { content, unseen })
  return { ...(checked.task as Omit<TaskSpec, 'checksum'>), checksum }
}

/**
 * A benchmark's tasks as it listed them, checked once before anything runs: every task, every problem, one line
 * each. Tasks built with defineTask pass; a hand-built task object may hold what JSON cannot carry.
 */
export function assertTaskSpecs(benchmarkId: string, tasks: unknown): asserts tasks is TaskSpec[] {
  if (!Array.isArray(tasks)) {
    throw new AgentEvalOpsError(
      'TASK_INVALID',
      `benchmark ${JSON.stringify(benchmarkId)}: listTasks() returned ${describeKind(tasks)}, not a list of tasks.`,
      { hint: 'Return an array of tasks built with defineTask().' },
    )
  }
  throwTaskProblems(tasks.flatMap((task) => taskProblems(task, TaskSpec)))
}

/**
 * One line per problem of a task object: `task "x": input.when is a Date; tasks must be plain JSON — pass …`.
 * What is not plain JSON comes first; the schema's complaints follow only when there is none (a Date in `input`
 * would otherwise also fail every branch of the JSON union, in a dump of all of them).
 */
export function taskProblems(value: unknown, schema: z.ZodType = TaskSpec): string[] {
  const checked = checkedTask(value, schema)
  return checked.ok ? [] : checked.problems
}

function checkedTask(
  value: unknown,
  schema: z.ZodType,
): { ok: true; task: unknown } | { ok: false; problems: string[] } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      problems: [`a task must be an object with id, benchmark and prompt, got ${describeKind(value)}`],
    }
  }
  const name = taskName(value)
  const plain = plainJsonProblems(value)
  if (plain.length > 0) return { ok: false, problems: plain.map((p) => `${name}: ${describeJsonProblem(p)}`) }
  const parsed = schema.safeParse(asJson(value))
  if (parsed.success) return { ok: true, task: parsed.data }
  return { ok: false, problems: parsed.error.issues.map((issue) => `${name}: ${issueText(issue, value)}`) }
}

/** A copy as JSON has it: only for a value plainJsonProblems found nothing in. */
function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

function throwTaskProblems(lines: readonly string[]): void {
  if (lines.length > 0) throw taskProblemsError(lines)
}

function taskProblemsError(lines: readonly string[]): AgentEvalOpsError {
  const shown = lines.slice(0, MAX_PROBLEM_LINES)
  const more = lines.length - shown.length
  return new AgentEvalOpsError(
    'TASK_INVALID',
    [...shown, ...(more > 0 ? [`… and ${more} more problems`] : [])].join('\n'),
  )
}

function issueText(issue: z.core.$ZodIssue, value: object): string {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol')
  let at: unknown = value
  for (const key of path)
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined
  const where = formatJsonPath(path)
  const message = issue.message.replace(/^Invalid input: /, '')
  if (issue.code === 'invalid_type' && at === undefined) return `${where} is missing (${message})`
  return `${where}: ${message}`
}

function taskName(value: object): string {
  const id = (value as { id?: unknown }).id
  return typeof id === 'string' && id !== '' ? `task ${JSON.stringify(id)}` : 'a task without an id'
}

function describeKind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}
