import { createRequire } from 'node:module'
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs'
import { extname } from 'node:path'
import type * as Yaml from 'yaml'
import type { Document, LineCounter, Node, Pair, YAMLMap } from 'yaml'
import * as z from 'zod'
import {
  AgentEvalOpsError,
  defineTask,
  describeJsonProblem,
  docPath,
  duplicateKeyMessage,
  duplicateKeys,
  isStackOverflow,
  parseYaml,
  TOO_DEEP_MESSAGE,
  errorMessage,
  JsonObject,
  JsonValue,
  plainJsonProblems,
  sha256,
  TaskMetadata,
  type TaskSpec,
  type ToolSpec,
} from '../../core/index.ts'
import { bindGrader, GraderProblem, GraderSpec, impliedGrader, type TaskGrader } from './grader.ts'
import { describeIssue, formatPath, orderIssues, valueAt } from './issues.ts'

const requireModule = createRequire(import.meta.url)
let yamlModule: typeof Yaml | undefined
/** yaml, loaded on first use: most processes that import agentevalops (Vitest's workers) never read YAML. */
const yaml = (): typeof Yaml => (yamlModule ??= requireModule('yaml') as typeof Yaml)

/** Where the dataset is, and how to talk about it. */
export interface DatasetSource {
  /** The path as the options give it (recorded in info().selection). */
  path: string
  /** The path read. */
  absolute: string
  /** The path as messages show it (`file:line: …`). */
  display: string
  /** What a relative `path` is resolved against, in words, e.g. `the current directory (/work)`. */
  base: string
}

export interface DatasetEntry {
  /** Line of the task in the file (1-based): of its JSONL line, or of its YAML list item. */
  line: number
  task: TaskSpec
  grader: TaskGrader
}

export interface LoadedDataset {
  /** sha256 of the file's bytes. */
  checksum: string
  /** In file order. */
  entries: DatasetEntry[]
  byId: ReadonlyMap<string, DatasetEntry>
}

const formatHint = (): string =>
  `Fix the task in the dataset file (see ${docPath('benchmarks/dataset.md')} for the format: id, prompt, input, expected, tools, metadata, grader).`

const ToolEntry = z
  .strictObject({
    name: z.string().min(1),
    description: z.string().optional(),
    input_schema: JsonObject.optional(),
    inputSchema: JsonObject.optional(),
  })
  .refine((t) => t.input_schema === undefined || t.inputSchema === undefined, {
    message: 'give input_schema or inputSchema, not both',
  })

/** One task as a dataset file writes it. Strict: an unknown key is a typo until shown otherwise. */
export const DatasetTaskEntry = z.strictObject({
  id: z.string().min(1),
  prompt: z.string(),
  input: JsonValue.optional(),
  expected: JsonValue.optional(),
  tools: z.array(ToolEntry).optional(),
  metadata: TaskMetadata.optional(),
  grader: GraderSpec.optional(),
})
export type DatasetTaskEntry = z.output<typeof DatasetTaskEntry>

type Path = readonly PropertyKey[]

/** A task as read from the file, before validation. */
interface RawRecord {
  line: number
  /** `item 3` for YAML list items, for messages; JSONL lines are named by their line alone. */
  label: string | undefined
  value: unknown
  /** The line of a value inside the record (a key of a YAML mapping sits on a line of its own). */
  lineOf(path: Path): number
}

interface Problem {
  line?: number
  message: string
  hint: string
}

class Problems {
  readonly list: Problem[] = []
  add(problem: Problem): void {
    this.list.push(problem)
  }
  /**
   * Every problem at once, by line, one line each (`file:line: message`), so a file is fixed in one pass; the
   * error's location is the first one's.
   */
  throwIfAny(source: DatasetSource): void {
    if (this.list.length === 0) return
    const sorted = [...this.list].sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
    const first = sorted[0]!
    if (sorted.length === 1) throw datasetError(source, first.message, first.hint, first.line)
    const where = (p: Problem): string =>
      p.line === undefined ? source.display : `${source.display}:${p.line}`
    const hints = [...new Set(sorted.map((p) => p.hint))]
    const lines = [
      `${sentence(first.message)}`,
      ...sorted.slice(1).map((p) => `${where(p)}: ${sentence(p.message)}`),
      `${sorted.length} problems in the file.`,
    ]
    throw new AgentEvalOpsError('DATASET_INVALID', lines.join('\n'), {
      hint: hints.join(' '),
      location: { file: source.display, ...(first.line === undefined ? {} : { line: first.line }) },
    })
  }
}

function datasetError(
  source: DatasetSource,
  message: string,
  hint: string,
  line?: number,
): AgentEvalOpsError {
  return new AgentEvalOpsError('DATASET_INVALID', sentence(message), {
    hint,
    location: { file: source.display, ...(line === undefined ? {} : { line }) },
  })
}

/** Ends a message with a full stop, so the hint after it reads as the next sentence. */
export function sentence(message: string): string {
  return /[.!?]$/.test(message) ? message : `${message}.`
}

type Format = 'jsonl' | 'yaml'

function formatOf(source: DatasetSource): Format {
  const ext = extname(source.path).toLowerCase()
  if (ext === '.jsonl') return 'jsonl'
  if (ext === '.yaml' || ext === '.yml') return 'yaml'
  throw datasetError(
    source,
    `unsupported dataset file type ${JSON.stringify(ext || '(none)')}`,
    'Use a .jsonl file (one JSON task object per line) or a .yaml/.yml file (a list of tasks, or a mapping with a tasks: list).',
  )
}

const MIB = 1024 * 1024

/**
 * A dataset is read whole. JSONL costs about its size in memory; a parsed YAML document some twenty times its size
 * (53 MB took 1.1 GB), so YAML gets the smaller bound and big datasets are written as JSONL.
 */
export const MAX_DATASET_BYTES: Record<Format, number> = { jsonl: 256 * MIB, yaml: 32 * MIB }

function readBytes(source: DatasetSource, format: Format): Buffer {
  let fd: number | undefined
  try {
    fd = openSync(source.absolute, 'r')
    // Sized before it is read: a file over the bound is refused without loading it.
    const { size } = fstatSync(fd)
    const limit = MAX_DATASET_BYTES[format]
    if (size > limit) {
      throw datasetError(
        source,
        `the file is ${(size / MIB).toFixed(1)} MiB, more than the ${limit / MIB} MiB a ${format === 'jsonl' ? 'JSONL' : 'YAML'} dataset may be`,
        format === 'yaml'
          ? 'Write a large dataset as JSONL (one task per line), which may be up to 256 MiB, or split it into several benchmarks.'
          : 'Split the dataset into several files, one benchmark each.',
      )
    }
    return readFileSync(fd)
  } catch (e) {
    if (e instanceof AgentEvalOpsError) throw e
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT') {
      throw new AgentEvalOpsError(
        'DATASET_INVALID',
        `dataset file ${JSON.stringify(source.path)} not found (looked for ${source.absolute}; a relative path is resolved against ${source.base}).`,
        {
          hint: "Fix the benchmark's `path` option: relative to that folder, or absolute.",
          cause: e,
        },
      )
    }
    throw new AgentEvalOpsError(
      'DATASET_INVALID',
      sentence(`cannot read dataset file ${source.absolute}: ${errorMessage(e)}`),
      { hint: 'The path must name a readable file.', cause: e },
    )
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Formats

function jsonlRecords(text: string, problems: Problems): RawRecord[] {
  const records: RawRecord[] = []
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1
    if (raw.trim() === '') return
    try {
      const value: unknown = JSON.parse(raw)
      records.push({ line, label: undefined, value, lineOf: () => line })
    } catch (e) {
      problems.add({
        line,
        message: `the line is not valid JSON: ${errorMessage(e)}`,
        hint: 'Each non-blank line of a .jsonl dataset is one task as a JSON object, written on one line.',
      })
    }
  })
  return records
}

/** Lines of values in a YAML document: a value is located at its key (`prompt:`), a list item at the item. */
function lineFinder(doc: Document, lines: LineCounter) {
  const resolve = (node: unknown): Node | undefined =>
    yaml().isAlias(node) ? (node.resolve(doc) ?? undefined) : ((node as Node | null | undefined) ?? undefined)
  // Each mapping's pairs by key, built once: a search per problem is quadratic in a mapping of many bad values.
  const pairs = new WeakMap<YAMLMap, Map<string, Pair>>()
  const pairOf = (map: YAMLMap, key: string): Pair | undefined => {
    let byKey = pairs.get(map)
    if (!byKey) {
      byKey = new Map()
      for (const p of map.items) {
        const k = String(yaml().isScalar(p.key) ? p.key.value : p.key)
        if (!byKey.has(k)) byKey.set(k, p)
      }
      pairs.set(map, byKey)
    }
    return byKey.get(key)
  }
  return (start: Node, path: Path): number => {
    let node: Node | undefined = start
    let at = start.range?.[0] ?? 0
    for (const seg of path) {
      if (yaml().isMap(node)) {
        const pair = pairOf(node, String(seg))
        if (!pair) break
        at = (pair.key as Node | null)?.range?.[0] ?? at
        node = resolve(pair.value)
      } else if (yaml().isSeq(node) && typeof seg === 'number') {
        node = resolve(node.items[seg])
        if (!node) break
        at = node.range?.[0] ?? at
      } else break
    }
    return lines.linePos(at).line
  }
}

const YAML_SHAPE_HINT =
  'A YAML dataset is a list of task mappings, or a mapping with one key, tasks:, holding that list.'

function yamlRecords(text: string, problems: Problems, source: DatasetSource): RawRecord[] {
  const lines = new (yaml().LineCounter)()
  const parsed = parseYaml(text, lines)
  if (parsed.tooDeepAt !== undefined) {
    throw datasetError(
      source,
      `invalid YAML: ${TOO_DEEP_MESSAGE}`,
      formatHint(),
      lines.linePos(parsed.tooDeepAt).line,
    )
  }
  const { doc } = parsed
  const [syntax] = doc.errors
  if (syntax) {
    const line = lines.linePos(syntax.pos[0]).line
    throw datasetError(source, `invalid YAML: ${syntax.message.split('\n')[0]}`, YAML_SHAPE_HINT, line)
  }
  const duplicates = duplicateKeys(doc)
  if (duplicates.length > 0) {
    // Every duplicate at once, as yaml's own check (now off, being quadratic) reported them; nothing else is checked.
    for (const dup of duplicates) {
      problems.add({
        line: lines.linePos(dup.offset).line,
        message: `invalid YAML: ${duplicateKeyMessage(dup.key, lines.linePos(dup.firstOffset).line)}`,
        hint: formatHint(),
      })
    }
    return []
  }
  const lineOf = lineFinder(doc, lines)
  const root = yaml().isAlias(doc.contents) ? doc.contents.resolve(doc) : doc.contents
  if (root === null || root === undefined) return []
  let list: Node | undefined = root
  let prefix: string[] = []
  if (yaml().isMap(root)) {
    for (const pair of root.items) {
      const key = yaml().isScalar(pair.key) ? pair.key.value : pair.key
      if (key !== 'tasks') {
        problems.add({
          line: lineOf(root, [String(key)]),
          message: `unknown key ${JSON.stringify(String(key))} at the top of the file`,
          hint: YAML_SHAPE_HINT,
        })
      }
    }
    const tasks = root.get('tasks', true) as unknown
    list = yaml().isAlias(tasks) ? tasks.resolve(doc) : (tasks as Node | undefined)
    prefix = ['tasks']
    if (list === undefined || list === null) {
      problems.add({
        line: lineOf(root, []),
        message: 'the mapping has no tasks: list',
        hint: YAML_SHAPE_HINT,
      })
      return []
    }
  }
  if (!yaml().isSeq(list)) {
    problems.add({
      line: lineOf(list, []),
      message: `expected a list of tasks${prefix.length > 0 ? ' under tasks:' : ''}`,
      hint: YAML_SHAPE_HINT,
    })
    return []
  }
  let data: unknown
  try {
    data = list.toJS(doc, { maxAliasCount: 1000 })
  } catch (e) {
    // Aliases can nest deeper than the text does: refused as the text's nesting is.
    if (isStackOverflow(e)) throw datasetError(source, `invalid YAML: ${TOO_DEEP_MESSAGE}`, formatHint())
    // e.g. an alias that expands too often ("billion laughs").
    throw datasetError(source, `cannot read the YAML: ${errorMessage(e)}`, YAML_SHAPE_HINT, lineOf(list, []))
  }
  const values = data as unknown[]
  const seq = list
  return values.map((value, index) => {
    const start = (seq.items[index] as Node | undefined) ?? seq
    return {
      line: lineOf(start, []),
      label: `item ${index + 1}${prefix.length > 0 ? ' of tasks:' : ''}`,
      value,
      lineOf: (path: Path) => lineOf(start, path),
    }
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Tasks

function toolOf(entry: z.output<typeof ToolEntry>): ToolSpec {
  return {
    name: entry.name,
    description: entry.description ?? '',
    inputSchema: entry.input_schema ?? entry.inputSchema ?? {},
  }
}

/**
 * The grader is part of the task's checksum: a resumed run grades a task whose grader changed again. The match it
 * declares rides on the task (`task.match`) for matchesExpected(); it is left out of the checksum, being derived from
 * `expected` and the grader, which are in it, so the checksums of tasks whose grading did not change stay as they were.
 */
function taskOf(entry: DatasetTaskEntry, benchmark: string, spec: GraderSpec, grader: TaskGrader): TaskSpec {
  const task = defineTask(
    {
      id: entry.id,
      benchmark,
      prompt: entry.prompt,
      ...(entry.input === undefined ? {} : { input: entry.input }),
      ...(entry.expected === undefined ? {} : { expected: entry.expected }),
      ...(entry.tools === undefined ? {} : { tools: entry.tools.map(toolOf) }),
      metadata: entry.metadata ?? {},
    },
    { unseen: { grader: JSON.parse(JSON.stringify(spec)) as JsonValue } },
  )
  return grader.match === undefined ? task : { ...task, match: grader.match }
}

function isMissing(issue: z.core.$ZodIssue, value: unknown): boolean {
  return issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined
}

function nameOf(record: RawRecord): string {
  const id = (record.value as { id?: unknown } | null)?.id
  const named = typeof id === 'string' && id !== '' ? `task ${JSON.stringify(id)}` : 'task'
  return record.label === undefined ? named : `${named} (${record.label})`
}

/**
 * Reads, parses and validates a dataset file, binding each task's grader (its own, else `defaultGrader`, else the
 * one its `expected` implies, see impliedGrader). Throws DATASET_INVALID listing every problem of the file, by line.
 */
export function loadDataset(
  source: DatasetSource,
  benchmark: string,
  defaultGrader: GraderSpec | undefined,
): LoadedDataset {
  const format = formatOf(source)
  const bytes = readBytes(source, format)
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '')
  const problems = new Problems()
  const records = format === 'jsonl' ? jsonlRecords(text, problems) : yamlRecords(text, problems, source)

  const entries: DatasetEntry[] = []
  const lineOfId = new Map<string, number>()
  for (const record of records) {
    const name = nameOf(record)
    const { value } = record
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      const got = value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value
      problems.add({
        line: record.line,
        message: `${name}: expected a task ${format === 'jsonl' ? 'object' : 'mapping'}, got ${got}`,
        hint: formatHint(),
      })
      continue
    }
    // What JSON cannot hold (a YAML `.nan`, `.inf`) first: the schema would only say "invalid input" about it.
    const notPlain = plainJsonProblems(value)
    for (const p of notPlain) {
      problems.add({
        line: record.lineOf(p.path),
        message: `${name}: ${describeJsonProblem(p)}`,
        hint: formatHint(),
      })
    }
    if (notPlain.length > 0) continue
    const parsed = DatasetTaskEntry.safeParse(value)
    if (!parsed.success) {
      // A typo'd key is the cause of the key it leaves missing beside it: the typo alone is reported.
      const ordered = orderIssues(parsed.error.issues)
      const typoIn = new Set(
        ordered.filter((i) => i.code === 'unrecognized_keys').map((i) => formatPath(i.path)),
      )
      const causes = ordered.filter(
        (i) => !(isMissing(i, value) && typoIn.has(formatPath(i.path.slice(0, -1)))),
      )
      for (const issue of causes) {
        const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined]
        for (const key of keys) {
          const path = key === undefined ? issue.path : [...issue.path, key]
          const one = key === undefined || keys.length === 1 ? issue : { ...issue, keys: [key] }
          problems.add({
            line: record.lineOf(path),
            message: `${name}: ${describeIssue(one, value)}`,
            hint: formatHint(),
          })
        }
      }
      continue
    }
    const entry = parsed.data
    const first = lineOfId.get(entry.id)
    if (first !== undefined) {
      problems.add({
        line: record.line,
        message: `task id ${JSON.stringify(entry.id)} is used twice: on lines ${first} and ${record.line}`,
        hint: 'Task ids must be unique within a dataset: rename one of them.',
      })
      continue
    }
    lineOfId.set(entry.id, record.line)
    const own = entry.grader !== undefined
    const whose = !own && defaultGrader ? " (the benchmark's default grader)" : ''
    let spec: GraderSpec
    let grader: TaskGrader
    try {
      spec = entry.grader ?? defaultGrader ?? impliedGrader(entry.expected)
      grader = bindGrader(spec, entry.expected)
    } catch (e) {
      if (!(e instanceof GraderProblem)) throw e
      problems.add({
        line: own ? record.lineOf(['grader']) : defaultGrader ? record.line : record.lineOf(['expected']),
        message: `${name}: ${e.message}${whose}`,
        hint: e.hint,
      })
      continue
    }
    entries.push({ line: record.line, task: taskOf(entry, benchmark, spec, grader), grader })
  }
  problems.throwIfAny(source)
  if (entries.length === 0) {
    throw datasetError(
      source,
      'the dataset has no tasks',
      format === 'jsonl' ? 'Write one JSON task object per line.' : YAML_SHAPE_HINT,
    )
  }
  return {
    checksum: sha256(bytes),
    entries,
    byId: new Map(entries.map((e) => [e.task.id, e])),
  }
}
