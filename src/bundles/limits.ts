import { MANIFEST_FILE, METADATA_FILE, REPLAY_COMMAND_FILE, REPORT_MD_FILE, SCORES_FILE } from './layout.ts'

/**
 * How much of an untrusted bundle a reader is willing to load. A sealed bundle from the writer is far below every
 * limit; the limits exist so that a damaged or hostile one produces a finding instead of exhausting memory or the
 * stack.
 */

/** Deeper JSON would overflow the stack of the schema checks (they recurse once per level, ~1,300 at most). */
export const MAX_JSON_DEPTH = 512

/** One line of a JSONL file: a trace event or a recorded exchange, with room for a large tool result. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024

/** Entries (files, folders, anything else) in one bundle: a run writes a handful plus its artifacts. */
export const MAX_ENTRIES = 100_000

const MIB = 1024 * 1024

/** Files read whole, by name: their content is parsed or returned in one piece. */
export const MAX_WHOLE_FILE_BYTES: Readonly<Record<string, number>> = {
  [MANIFEST_FILE]: 64 * MIB,
  [METADATA_FILE]: 16 * MIB,
  // Every trial's record, ~3 KB each as written: some 170,000 trials. Read whole, so below V8's longest string
  // (2^29 - 24 characters); a reader that streams its trials is what larger runs need.
  [SCORES_FILE]: 500 * MIB,
  [REPORT_MD_FILE]: 64 * MIB,
  [REPLAY_COMMAND_FILE]: 1 * MIB,
}

/** A limit for a message: the limits are whole MiB. */
export function formatBytes(bytes: number): string {
  return bytes >= MIB ? `${Math.round((bytes / MIB) * 10) / 10} MiB` : `${bytes} bytes`
}
