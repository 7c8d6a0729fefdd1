import { readFile } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'
import * as z from 'zod'
import {
  AgentEvalOpsError,
  defineTask,
  docPath,
  errorMessage,
  sha256,
  type TaskSpec,
} from '../../core/index.ts'
import { TEST_OUTPUT_FORMATS } from './test-output.ts'

/**
 * What grade() needs, kept in the task's `expected` so the task checksum covers it: a changed test patch, test list
 * or test command is a changed task.
 */
export const RepoExpected = z.object({
  test_patch: z.string(),
  FAIL_TO_PASS: z.array(z.string().min(1)).min(1),
  PASS_TO_PASS: z.array(z.string().min(1)),
  /** The gold patch, for an oracle (applyGoldPatch). */
  patch: z.string().optional(),
  test_command: z.array(z.string().min(1)).min(1),
  test_output_format: z.enum(TEST_OUTPUT_FORMATS),
})
export type RepoExpected = z.infer<typeof RepoExpected>

/** What prepare() needs, in the task's `input`: the repository as the instances file writes it, and the commit. */
export const RepoInput = z.object({ repo: z.string().min(1), base_commit: z.string().min(1) })
export type RepoInput = z.infer<typeof RepoInput>

/** A revision git must never read as an option, and one word. */
const REVISION = /^[^\s-]\S*$/

/** SWE-bench keeps the two test lists as JSON-encoded strings; other exports keep lists. Both are accepted. */
const testList = z.union([z.array(z.string()), z.string()]).transform((value, ctx) => {
  let list: unknown = value
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value)
    } catch {
      list = undefined
    }
  }
  const parsed = z.array(z.string().min(1)).safeParse(list)
  if (!parsed.success) {
    ctx.addIssue({ code: 'custom', message: 'must be a list of test names, or a JSON string of one' })
    return z.NEVER
  }
  return parsed.data
})

/** A string is split on whitespace: there is no shell, so no quoting, globbing or `$VAR`. */
const testCommand = z.union([z.array(z.string().min(1)).min(1), z.string()]).transform((value, ctx) => {
  const argv = typeof value === 'string' ? value.trim().split(/\s+/).filter(Boolean) : value
  if (argv.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'must name a program' })
    return z.NEVER
  }
  return argv
})

/** One SWE-bench instance; other fields (version, hints_text, created_at…) are ignored. */
export const RepoInstance = z.looseObject({
  instance_id: z.string().min(1),
  repo: z.string().min(1),
  base_commit: z.string().regex(REVISION, 'must be a commit (hex) or a revision not starting with "-"'),
  problem_statement: z.string(),
  test_patch: z.string(),
  FAIL_TO_PASS: testList.refine((list) => list.length > 0, 'must name at least one test'),
  PASS_TO_PASS: testList,
  patch: z.string().nullish(),
  test_command: testCommand,
  test_output_format: z.enum(TEST_OUTPUT_FORMATS).default('pytest'),
})
export type RepoInstance = z.output<typeof RepoInstance>

export interface InstancesFile {
  /** Absolute path of the file. */
  file: string
  /** sha256 of its bytes. */
  checksum: string
  instances: RepoInstance[]
}

/** Reads and validates an instances file: JSON Lines (one instance a line), or a JSON array of instances. */
export async function readInstances(path: string): Promise<InstancesFile> {
  const file = resolve(path)
  let bytes: Buffer
  try {
    bytes = await readFile(file)
  } catch (e) {
    throw new AgentEvalOpsError('DATASET_INVALID', `cannot read the instances file: ${errorMessage(e)}`, {
      location: { file },
      hint: 'Check the benchmark option `path`: it names a JSONL or JSON file of SWE-bench instances.',
      cause: e,
    })
  }
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '')
  const records = text.trimStart().startsWith('[') ? jsonArray(file, text) : jsonLines(file, text)
  if (records.length === 0) {
    throw new AgentEvalOpsError('DATASET_INVALID', 'the instances file has no instance', {
      location: { file },
      hint: 'Write one SWE-bench instance per line (JSONL), or a JSON array of them.',
    })
  }
  const seen = new Map<string, number>()
  const instances = records.map(({ value, line, path }) => {
    const parsed = RepoInstance.safeParse(value)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!
      const field = issue.path.join('.')
      const id = (value as { instance_id?: unknown } | null)?.instance_id
      const which = typeof id === 'string' ? `instance ${JSON.stringify(id)}` : 'an instance'
      throw new AgentEvalOpsError(
        'DATASET_INVALID',
        `${which}: ${field === '' ? '' : `${field} `}${issue.message}`,
        {
          location: {
            file,
            ...(line === undefined ? {} : { line }),
            path: `${path}${field ? `.${field}` : ''}`,
          },
          hint: `Each instance needs instance_id, repo, base_commit, problem_statement, test_patch, FAIL_TO_PASS, PASS_TO_PASS and test_command (see ${docPath('benchmarks/repo.md')}).`,
        },
      )
    }
    const instance = parsed.data
    const first = seen.get(instance.instance_id)
    if (first !== undefined) {
      throw new AgentEvalOpsError(
        'DATASET_INVALID',
        `instance ${JSON.stringify(instance.instance_id)} is listed twice (first as record ${first + 1})`,
        {
          location: { file, ...(line === undefined ? {} : { line }), path },
          hint: 'Instance ids must be unique: they are the task ids.',
        },
      )
    }
    seen.set(instance.instance_id, seen.size)
    return instance
  })
  return { file, checksum: sha256(bytes), instances }
}

interface RawRecord {
  value: unknown
  line?: number
  /** Where it is, for messages: `[3]` in an array; `$` for a JSONL line. */
  path: string
}

function jsonLines(file: string, text: string): RawRecord[] {
  const records: RawRecord[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim()
    if (raw === '') continue
    try {
      records.push({ value: JSON.parse(raw), line: i + 1, path: '$' })
    } catch (e) {
      throw new AgentEvalOpsError('DATASET_INVALID', `line is not JSON: ${errorMessage(e)}`, {
        location: { file, line: i + 1 },
        hint: 'A JSONL instances file holds one JSON object per line.',
        cause: e,
      })
    }
  }
  return records
}

function jsonArray(file: string, text: string): RawRecord[] {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    throw new AgentEvalOpsError('DATASET_INVALID', `the file is not JSON: ${errorMessage(e)}`, {
      location: { file },
      hint: 'A file starting with "[" must be one JSON array of instances; otherwise write JSONL.',
      cause: e,
    })
  }
  return (value as unknown[]).map((item, i) => ({ value: item, path: `[${i}]` }))
}

/** The task of an instance: grading material in `expected`, where to check out in `input`. */
export function instanceTask(instance: RepoInstance, benchmarkId: string, instancesFile: string): TaskSpec {
  const input: RepoInput = { repo: instance.repo, base_commit: instance.base_commit }
  const expected: RepoExpected = {
    test_patch: instance.test_patch,
    FAIL_TO_PASS: instance.FAIL_TO_PASS,
    PASS_TO_PASS: instance.PASS_TO_PASS,
    ...(typeof instance.patch === 'string' ? { patch: instance.patch } : {}),
    test_command: instance.test_command,
    test_output_format: instance.test_output_format,
  }
  return defineTask({
    id: instance.instance_id,
    benchmark: benchmarkId,
    prompt: instance.problem_statement,
    input,
    expected,
    metadata: { category: repoName(instance.repo, instancesFile), repo: instance.repo },
  })
}

/** The repository's folder name, e.g. `django` for `../clones/django/`. */
function repoName(repo: string, instancesFile: string): string {
  const name = basename(repo.replace(/[\\/]+$/, ''))
  if (name !== '' && name !== '.' && name !== '..') return name
  return basename(resolveRepoPath(repo, instancesFile)) || repo
}

/** A repository path as the instances file writes it, made absolute: relative paths are relative to the file. */
export function resolveRepoPath(repo: string, instancesFile: string): string {
  return resolve(dirname(instancesFile), repo)
}
