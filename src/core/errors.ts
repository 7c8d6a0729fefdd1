/** Stable codes: users and tests match on these, never on message text. */
export const ERROR_CODES = [
  'CONFIG_INVALID',
  'TASK_INVALID',
  'META_NOT_JSON',
  'TRACE_STORE_CLOSED',
  'TRACE_INVALID',
  'BUNDLE_INVALID',
  'BUNDLE_NOT_FOUND',
  'BUNDLE_EXISTS',
  'LIMIT_REACHED',
  'INFRA_FAILURE',
  'OBJECT_STORE_FAILED',
  'RUN_ABORTED',
  'RECORDING_MISSING',
  'RECORDING_UNKEYED',
  'SECRET_MISSING',
  'JOB_UNKNOWN',
  'COMPARE_MISMATCH',
  'ARTIFACT_PATH_INVALID',
  'DATASET_INVALID',
  'GRADE_TIMEOUT',
  'MERGE_REFUSED',
  'USAGE',
] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

export interface ErrorDetails {
  /** What the user should do about it. */
  hint?: string
  /** For config errors: where the problem is. */
  location?: { file: string; line?: number; col?: number; path?: string }
  cause?: unknown
}

/** The one error class that reaches users: a stable code and a message that says what to do. */
export class AgentEvalOpsError extends Error {
  readonly code: ErrorCode
  readonly hint: string | undefined
  readonly location: ErrorDetails['location']

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    const where = details.location ? `${formatLocation(details.location)}: ` : ''
    const hint = details.hint ? ` ${details.hint}` : ''
    super(`${where}${message}${hint}`, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = 'AgentEvalOpsError'
    this.code = code
    this.hint = details.hint
    this.location = details.location
  }
}

function formatLocation(loc: NonNullable<ErrorDetails['location']>): string {
  const pos = loc.line === undefined ? '' : `:${loc.line}${loc.col === undefined ? '' : `:${loc.col}`}`
  return `${loc.file}${pos}${loc.path ? ` (${loc.path})` : ''}`
}

export function isAgentEvalOpsError(e: unknown, code?: ErrorCode): e is AgentEvalOpsError {
  return e instanceof AgentEvalOpsError && (code === undefined || e.code === code)
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}
