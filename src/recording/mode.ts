import { AgentEvalOpsError } from '../core/index.ts'

/**
 * - `off`: every model call is made; nothing is recorded.
 * - `record`: every call is made and recorded afresh (the `-u` of recordings).
 * - `replay`: every call is answered from the recording; a missing one is an error. No network.
 * - `auto` (default): replay what is recorded, record the rest; in CI a missing recording is an error instead,
 *   as a missing snapshot is.
 */
export const RECORD_MODES = ['off', 'record', 'replay', 'auto'] as const
export type RecordMode = (typeof RECORD_MODES)[number]

export const RECORD_ENV = 'AGENTEVALOPS_RECORD'

/** The mode AGENTEVALOPS_RECORD asks for (default `auto`); anything else is a configuration error. */
export function recordModeFromEnv(env: NodeJS.ProcessEnv = process.env): RecordMode {
  const raw = env[RECORD_ENV]?.trim().toLowerCase()
  if (raw === undefined || raw === '') return 'auto'
  if ((RECORD_MODES as readonly string[]).includes(raw)) return raw as RecordMode
  throw new AgentEvalOpsError(
    'CONFIG_INVALID',
    `${RECORD_ENV}=${JSON.stringify(env[RECORD_ENV])} is not a recording mode`,
    {
      hint: `Use one of: ${RECORD_MODES.join(', ')}.`,
    },
  )
}

/** Vitest's own test for CI (the `CI` variable set to anything but false or 0). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase()
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0'
}

/** A bundle's recordings.jsonl to replay every task from (set by `agentevalops replay`). */
export const RECORDINGS_FILE_ENV = 'AGENTEVALOPS_RECORDINGS_FILE'
