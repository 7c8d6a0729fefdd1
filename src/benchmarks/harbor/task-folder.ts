import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import * as z from 'zod'
import {
  AgentEvalOpsError,
  defineTask,
  docPath,
  errorMessage,
  type JsonObject,
  type TaskSpec,
} from '../../core/index.ts'
import type { TomlError } from 'smol-toml'
import { hashTree, listTree } from './tree.ts'

/** `[verifier] timeout_sec` when a task.toml does not say (Harbor's own default). */
export const DEFAULT_VERIFIER_TIMEOUT_SECONDS = 120

export const INSTRUCTION_FILE = 'instruction.md'
export const CONFIG_FILE = 'task.toml'
export const TESTS_DIR = 'tests'
export const TEST_SCRIPT = 'test.sh'
export const SOLUTION_DIR = 'solution'
export const SOLVE_SCRIPT = 'solve.sh'
export const ENVIRONMENT_DIR = 'environment'
/** What environment/ holds to build a container; the rest of it seeds the workspace. */
export const CONTAINER_FILES: readonly string[] = [
  'Dockerfile',
  'docker-compose.yaml',
  'docker-compose.yml',
  '.dockerignore',
]

/** An instruction larger than this is not a prompt. */
const MAX_INSTRUCTION_BYTES = 1024 * 1024
/** A task.toml larger than this is not a configuration file. */
const MAX_CONFIG_BYTES = 1024 * 1024
/** Arrays and inline tables nested deeper than this are refused, so a hostile file cannot make parsing recurse far. */
const MAX_CONFIG_NESTING = 32

/** What grading needs of a task, kept in `expected` so that it is part of the task's checksum. */
export interface HarborExpected {
  [key: string]: string | number | boolean | null
  hasSolution: boolean
  /** `[verifier] timeout_sec`, default 120. */
  testTimeoutSeconds: number
  /** `[agent] timeout_sec`, when set: the agent's time limit, whatever the runner (BenchmarkAdapter.taskLimits). */
  agentTimeoutSeconds: number | null
  /** sha256 over tests/ (paths and contents). */
  testsSha256: string
  /** sha256 over solution/, null without one. */
  solutionSha256: string | null
  /** sha256 over the workspace seed (environment/ without its container files), null without one. */
  environmentSha256: string | null
}

/** One task folder, loaded. */
export interface HarborTaskSource {
  id: string
  /** Absolute path of the task folder. */
  dir: string
  spec: TaskSpec
  expected: HarborExpected
}

const positiveSeconds = z.number().positive().finite()

/** The parts of task.toml we read; everything else in it is allowed and ignored. */
const TaskToml = z.looseObject({
  metadata: z
    .looseObject({
      difficulty: z.string().optional(),
      category: z.string().optional(),
      tags: z.array(z.string()).optional(),
    })
    .optional(),
  /** Harbor's newer schema names keywords here. */
  task: z.looseObject({ keywords: z.array(z.string()).optional() }).optional(),
  verifier: z.looseObject({ timeout_sec: positiveSeconds.optional() }).optional(),
  agent: z.looseObject({ timeout_sec: positiveSeconds.optional() }).optional(),
})

function invalid(file: string, message: string, extra: { line?: number; col?: number; path?: string } = {}) {
  return new AgentEvalOpsError('DATASET_INVALID', message, {
    location: { file, ...extra },
    hint: `A Harbor task folder holds instruction.md, task.toml and tests/test.sh (solution/ and environment/ are optional); see ${docPath('benchmarks/harbor.md')}.`,
  })
}

async function kindOf(path: string): Promise<'file' | 'dir' | null> {
  try {
    const s = await stat(path)
    return s.isDirectory() ? 'dir' : s.isFile() ? 'file' : null
  } catch {
    return null
  }
}

/** Whether `dir` looks like a task folder (it has task.toml or instruction.md). */
export async function isTaskFolder(dir: string): Promise<boolean> {
  return (
    (await kindOf(join(dir, CONFIG_FILE))) !== null || (await kindOf(join(dir, INSTRUCTION_FILE))) !== null
  )
}

/**
 * The task folders under `path`: `path` itself when it is one, else its sub-folders that are (hidden ones and
 * folders with neither task.toml nor instruction.md are skipped), in id order. None at all is DATASET_INVALID.
 */
export async function findTaskFolders(path: string): Promise<string[]> {
  const root = resolve(path)
  if ((await kindOf(root)) !== 'dir') throw invalid(root, 'the harbor dataset path is not a folder', {})
  if (await isTaskFolder(root)) return [root]
  const names = (await readdir(root)).filter((n) => !n.startsWith('.')).sort()
  const found: string[] = []
  for (const name of names) {
    const dir = join(root, name)
    if ((await kindOf(dir)) === 'dir' && (await isTaskFolder(dir))) found.push(dir)
  }
  if (found.length === 0)
    throw invalid(root, 'no task folders here (a task folder has task.toml and instruction.md)')
  return found
}

/** Reads, validates and checksums one task folder. Any problem is a DATASET_INVALID naming the file. */
export async function loadTaskFolder(dir: string, benchmarkId: string): Promise<HarborTaskSource> {
  const id = basename(dir)
  const instructionPath = join(dir, INSTRUCTION_FILE)
  const configPath = join(dir, CONFIG_FILE)
  const testsPath = join(dir, TESTS_DIR)
  const testScript = join(testsPath, TEST_SCRIPT)

  if ((await kindOf(instructionPath)) !== 'file')
    throw invalid(instructionPath, `task ${JSON.stringify(id)} has no ${INSTRUCTION_FILE}`)
  if ((await kindOf(configPath)) !== 'file')
    throw invalid(configPath, `task ${JSON.stringify(id)} has no ${CONFIG_FILE}`)
  if ((await kindOf(testScript)) !== 'file')
    throw invalid(testScript, `task ${JSON.stringify(id)} has no ${TESTS_DIR}/${TEST_SCRIPT}`)

  const instructionSize = (await stat(instructionPath)).size
  if (instructionSize > MAX_INSTRUCTION_BYTES)
    throw invalid(instructionPath, `${INSTRUCTION_FILE} is larger than ${MAX_INSTRUCTION_BYTES} bytes`)
  const prompt = await readFile(instructionPath, 'utf8')
  if (prompt.trim() === '') throw invalid(instructionPath, `${INSTRUCTION_FILE} is empty`)

  const config = await readConfig(configPath)

  const testsSha256 = await hashTree(await listTree(testsPath))
  const solutionPath = join(dir, SOLUTION_DIR)
  const hasSolutionDir = (await kindOf(solutionPath)) === 'dir'
  const solutionSha256 = hasSolutionDir ? await hashTree(await listTree(solutionPath)) : null
  const environmentPath = join(dir, ENVIRONMENT_DIR)
  const seed =
    (await kindOf(environmentPath)) === 'dir' ? await listTree(environmentPath, isContainerFile) : []
  const environmentSha256 = seed.length > 0 ? await hashTree(seed) : null

  const expected: HarborExpected = {
    hasSolution: hasSolutionDir && (await kindOf(join(solutionPath, SOLVE_SCRIPT))) === 'file',
    testTimeoutSeconds: config.verifier?.timeout_sec ?? DEFAULT_VERIFIER_TIMEOUT_SECONDS,
    agentTimeoutSeconds: config.agent?.timeout_sec ?? null,
    testsSha256,
    solutionSha256,
    environmentSha256,
  }
  const metadata: JsonObject = {}
  if (config.metadata?.category !== undefined) metadata.category = config.metadata.category
  if (config.metadata?.difficulty !== undefined) metadata.difficulty = config.metadata.difficulty
  const tags = config.metadata?.tags ?? config.task?.keywords
  if (tags !== undefined) metadata.tags = tags

  let spec: TaskSpec
  try {
    spec = defineTask({ id, benchmark: benchmarkId, prompt, expected, metadata })
  } catch (e) {
    throw invalid(dir, `task ${JSON.stringify(id)} is invalid: ${errorMessage(e)}`)
  }
  return { id, dir, spec, expected }
}

/** Only environment/'s top-level container files are skipped; a `Dockerfile` deeper down is workspace content. */
function isContainerFile(rel: string): boolean {
  return CONTAINER_FILES.includes(rel)
}

async function readConfig(file: string): Promise<z.infer<typeof TaskToml>> {
  let text: string
  try {
    if ((await stat(file)).size > MAX_CONFIG_BYTES)
      throw invalid(file, `${CONFIG_FILE} is larger than ${MAX_CONFIG_BYTES} bytes`)
    text = await readFile(file, 'utf8')
  } catch (e) {
    if (e instanceof AgentEvalOpsError) throw e
    throw invalid(file, `${CONFIG_FILE} could not be read: ${errorMessage(e)}`)
  }
  // Loaded here, by the harbor benchmark's loading only: a worker that runs other trials never loads the parser.
  const toml = await import('smol-toml')
  let table: unknown
  try {
    table = toml.parse(text, { maxDepth: MAX_CONFIG_NESTING })
  } catch (e) {
    if (e instanceof toml.TomlError)
      throw invalid(file, `${CONFIG_FILE} is not valid TOML: ${syntaxReason(e, text)}`, {
        line: e.line,
        col: e.column,
      })
    throw invalid(file, `${CONFIG_FILE} could not be parsed: ${errorMessage(e)}`)
  }
  const parsed = TaskToml.safeParse(table)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const path = issue?.path.join('.') ?? ''
    throw invalid(file, `${CONFIG_FILE}: ${issue?.message ?? 'invalid'}`, path === '' ? {} : { path })
  }
  return parsed.data
}

/**
 * smol-toml's reason on one line (its message also holds a code excerpt, and the location goes in front of ours);
 * an unreadable value is most often a string without quotes, so that one names the text and the fix.
 */
function syntaxReason(error: TomlError, text: string): string {
  const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '')
  if (reason !== 'invalid value') return reason
  const line = text.split(/\r?\n/)[error.line - 1] ?? ''
  const token = /^[^\s,#\]}]+/.exec(line.slice(error.column - 1))?.[0]
  return token === undefined
    ? reason
    : `invalid value ${JSON.stringify(token)} (strings need quotes: key = "text")`
}

/** The task's `[agent] timeout_sec`, as the harbor benchmark put it in `expected`; null when absent. */
export function agentTimeoutOf(task: TaskSpec): number | null {
  const expected = task.expected
  if (expected && typeof expected === 'object' && !Array.isArray(expected)) {
    const value = expected.agentTimeoutSeconds
    if (typeof value === 'number' && value > 0) return value
  }
  return null
}
