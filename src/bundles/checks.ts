import { MAX_JSON_DEPTH } from './limits.ts'

/**
 * Every check a bundle reader performs, by stable name. Findings carry the name so that tools and CI can filter or
 * count them without matching message text, which is free to improve.
 */
export const BUNDLE_CHECKS = {
  'bundle-folder': 'the path is an existing folder',
  'files-present': 'every file the format requires, and every file manifest.json lists, is there',
  'no-symlinks': 'nothing in the bundle is a symbolic link (links are refused, never followed)',
  'regular-files': 'every entry is a plain file or folder: no FIFOs, sockets or devices',
  readable: 'every file can be opened and read',
  'size-limits': 'files, JSONL lines and the number of entries stay within what a reader loads',
  utf8: 'every text file (JSON, JSONL, report.md, replay_command.txt) is valid UTF-8',
  'json-syntax': `manifest.json, metadata.json and scores.json are JSON, nested at most ${MAX_JSON_DEPTH} levels deep`,
  'format-version': 'the format and schema versions are ones this agentevalops reads, the same in every file',
  'manifest-schema': 'manifest.json matches its schema',
  'safe-paths': 'every path manifest.json lists is relative and stays inside the bundle',
  'manifest-entries': 'manifest.json lists each other file once, and not itself',
  'manifest-sizes': 'every file has the size manifest.json records',
  'manifest-checksums': 'every file has the SHA-256 manifest.json records',
  'no-extra-files': 'every file in the bundle is listed in manifest.json',
  'metadata-schema': 'metadata.json matches its schema',
  'scores-schema': 'scores.json matches the schema of its format version',
  'run-ids': 'manifest, metadata, scores and every trace event name the same run',
  'trial-count': "metadata.json's trialCount is the number of trials in scores.json",
  'duplicate-trials': 'no trial appears twice in scores.json',
  'monitor-window':
    'a monitor bundle (and only one) names its window in metadata.json, with one trial per scored trace',
  'registered-trials':
    "scores.json holds every trial the run registered (metadata.json's registeredTrials), and no other",
  'trace-schema':
    'each line of traces.jsonl is a JSON event of a known kind with a valid payload and (from format 3) a benchmark',
  'trace-order': "each trial's events are contiguous in traces.jsonl",
  'trace-steps': "each trial's steps start at 0 and strictly increase",
  'trace-terminal': 'each trial has exactly one agent.terminal event',
  'trials-match-traces':
    'every trial in scores.json has events, and every traced trial (benchmark, task, trial) is in scores.json',
  recordings: 'every line of recordings.jsonl is a recorded exchange of a trial in scores.json',
  spans: 'spans.jsonl (if any) is one OTLP trace under eval.run, with an eval.task per trial and its outcome',
  'finite-numbers': 'no number in a JSON or JSONL file is Infinity (a literal such as 1e400 parses as one)',
  'trial-outcome':
    "each trial's outcome is what the engine derives from its record; passed only for outcome passed",
  'summary-matches':
    "scores.json's summary is what the stats scorer computes from its trials with the settings it records",
  'event-count': "each trial's eventCount is the number of events traces.jsonl holds for it",
  citations: 'every step a score, evaluator finding or policy finding cites is an event of that trial',
  'tool-pairs':
    'a tool_result answers an earlier tool_call (by callId, else by tool); a completed trial leaves none open',
  'text-not-empty': 'report.md and replay_command.txt are not empty',
} as const

export type CheckName = keyof typeof BUNDLE_CHECKS

export const CHECK_NAMES = Object.keys(BUNDLE_CHECKS) as CheckName[]
