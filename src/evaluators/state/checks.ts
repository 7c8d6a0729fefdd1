import * as z from 'zod'
import { AgentEvalOpsError, JsonValue } from '../../core/index.ts'
import { JSON_PATH_HINT, tryParseJsonPath, type JsonPathSegment } from './json-path.ts'
import { staticPathProblem } from './workspace.ts'

/** A path relative to the workspace; one that leaves it is rejected when the checks are compiled. */
const WorkspacePath = z.string().min(1)

/**
 * One thing the workspace must satisfy when the trial ends. The same keys in TypeScript and in a task's
 * `metadata.state_checks` (YAML/JSON). Objects are strict: a misspelt key (`expect_exit_code`) would otherwise be
 * silently ignored and the check would test something weaker than intended.
 *
 * `command` checks run in the workspace and must only read it (`git diff --quiet`, `node --test`, `test -x bin/x`):
 * the evaluator cannot tell a command that writes from one that does not, so keeping them read-only is the check
 * author's responsibility.
 */
export const StateCheck = z.discriminatedUnion('type', [
  /** Passes when the path resolves to an existing entry (a file or a directory). */
  z.strictObject({ type: z.literal('file_exists'), path: WorkspacePath }),
  /** Passes when nothing exists at the path (a dangling symlink counts as nothing, as in file_exists). */
  z.strictObject({ type: z.literal('file_absent'), path: WorkspacePath }),
  /** Exact UTF-8 content; `trim: true` ignores whitespace around both sides (default false: files are compared as written). */
  z.strictObject({
    type: z.literal('file_equals'),
    path: WorkspacePath,
    content: z.string(),
    trim: z.boolean().optional(),
  }),
  /** A JavaScript RegExp source (no slashes) that must match somewhere in the file. */
  z.strictObject({
    type: z.literal('file_matches'),
    path: WorkspacePath,
    pattern: z.string(),
    flags: z.string().optional(),
  }),
  /** The file is JSON and the value at `jsonPath` (see json-path.ts for the subset) equals `value`, key order aside. */
  z.strictObject({
    type: z.literal('json_path_equals'),
    path: WorkspacePath,
    jsonPath: z.string().min(1),
    value: JsonValue,
  }),
  /** Runs argv (no shell) in the workspace; passes on the expected exit code (default 0). */
  z.strictObject({
    type: z.literal('command'),
    argv: z
      .array(z.string().refine((s) => !s.includes('\0'), 'must not contain a NUL character'))
      .min(1)
      .refine((argv) => argv[0] !== '', 'argv[0] (the program) must not be empty'),
    expectExitCode: z.number().int().min(0).max(255).optional(),
    timeoutMs: z.number().int().positive().optional(),
  }),
])
export type StateCheck = z.infer<typeof StateCheck>
export type StateCheckType = StateCheck['type']

/** A check ready to run: paths vetted, regexes compiled, JSON paths parsed. */
export type CompiledCheck =
  | { type: 'file_exists' | 'file_absent'; path: string }
  | { type: 'file_equals'; path: string; content: string; trim: boolean }
  | { type: 'file_matches'; path: string; regex: RegExp }
  | {
      type: 'json_path_equals'
      path: string
      jsonPath: string
      segments: JsonPathSegment[]
      value: JsonValue
    }
  | { type: 'command'; argv: string[]; expectExitCode: number; timeoutMs: number | undefined }

/** Where a list of checks came from, for error messages: who owns it and under which field. */
export interface CheckSource {
  /** e.g. `task "fix-readme"` or `stateBased "state"`. */
  owner: string
  /** e.g. `metadata.state_checks` or `options.checks`. */
  field: string
}

const SHAPES_HINT =
  'Each state check is one of { type: file_exists | file_absent, path }, { type: file_equals, path, content, trim? }, ' +
  '{ type: file_matches, path, pattern, flags? }, { type: json_path_equals, path, jsonPath, value } or ' +
  '{ type: command, argv, expectExitCode?, timeoutMs? }; paths are relative to the workspace.'

function formatField(field: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`),
    field,
  )
}

function configError(source: CheckSource, at: readonly PropertyKey[], message: string, hint = SHAPES_HINT) {
  return new AgentEvalOpsError(
    'CONFIG_INVALID',
    `${source.owner}: ${formatField(source.field, at)} ${message}`,
    {
      hint,
    },
  )
}

/** Validates and compiles a list of checks; every problem that does not depend on the agent is CONFIG_INVALID here. */
export function compileChecks(raw: unknown, source: CheckSource): CompiledCheck[] {
  const parsed = z.array(StateCheck).safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw configError(source, issue?.path ?? [], `is invalid: ${issue?.message ?? 'invalid'}`)
  }
  return parsed.data.map((check, i) => compileOne(check, source, i))
}

function compileOne(check: StateCheck, source: CheckSource, i: number): CompiledCheck {
  if (check.type === 'command') {
    return {
      type: 'command',
      argv: check.argv,
      expectExitCode: check.expectExitCode ?? 0,
      timeoutMs: check.timeoutMs,
    }
  }
  const problem = staticPathProblem(check.path)
  if (problem !== undefined)
    throw configError(source, [i, 'path'], `${JSON.stringify(check.path)} ${problem}`)
  switch (check.type) {
    case 'file_exists':
    case 'file_absent':
      return { type: check.type, path: check.path }
    case 'file_equals':
      return { type: check.type, path: check.path, content: check.content, trim: check.trim ?? false }
    case 'file_matches': {
      let regex: RegExp
      try {
        regex = new RegExp(check.pattern, check.flags ?? '')
      } catch (e) {
        throw configError(
          source,
          [i, 'pattern'],
          `is not a valid regular expression: ${e instanceof Error ? e.message : String(e)}`,
          'Fix the pattern (a JavaScript RegExp source, without slashes) or its flags.',
        )
      }
      return { type: check.type, path: check.path, regex }
    }
    case 'json_path_equals': {
      const jsonPath = tryParseJsonPath(check.jsonPath)
      if (!jsonPath.ok)
        throw configError(
          source,
          [i, 'jsonPath'],
          `${JSON.stringify(check.jsonPath)} is not a supported JSON path: ${jsonPath.reason}`,
          JSON_PATH_HINT,
        )
      return {
        type: check.type,
        path: check.path,
        jsonPath: check.jsonPath,
        segments: jsonPath.segments,
        value: check.value,
      }
    }
  }
}
