import { lstat } from 'node:fs/promises'
import { join } from 'node:path'
import { derivedRunFiles } from '../../reporters/derived-files.ts'
import {
  formatFindings,
  MANIFEST_FILE,
  REPORT_MD_FILE,
  resealBundle,
  type RecoveredBundle,
  type CheckName,
  type Finding,
} from '../bundles/index.ts'
import {
  AgentEvalOpsError,
  SPANS_FILE,
  type RunMetadata,
  type RunSummary,
  type ScoresRecords,
} from '../core/index.ts'
import { renderMarkdownReport } from '../reports/index.ts'
import { HTML_REPORT_FILE } from '../reports/html/index.ts'
import { statsScorer, withGroupedHeadline } from '../scorers/index.ts'

/**
 * The files of a bundle made from its records (metadata.json, scores.json, traces.jsonl) alone: whatever happens to
 * them, they can be made again. Everything else (the records, replay_command.txt, recordings, artifacts) is what
 * a run produced, and no command re-creates it.
 */
export const DERIVED_FILES: readonly string[] = [REPORT_MD_FILE, HTML_REPORT_FILE, SPANS_FILE]

/**
 * What replacing a file repairs, by the check that found it wrong; the first that applies is the one said. A file of
 * another size has another checksum: both read as the mismatch the manifest shows.
 */
const REASONS: readonly (readonly [CheckName, string])[] = [
  ['files-present', 'missing'],
  ['no-symlinks', 'a symbolic link'],
  ['regular-files', 'not a regular file'],
  ['readable', 'unreadable'],
  ['size-limits', 'too large'],
  ['manifest-sizes', 'checksum mismatch'],
  ['manifest-checksums', 'checksum mismatch'],
  ['no-extra-files', 'not listed in manifest.json'],
  ['utf8', 'not UTF-8'],
  ['text-not-empty', 'empty'],
  ['spans', 'inconsistent with scores.json'],
]

export interface Replacement {
  file: string
  reason: string
}

/** The summary a report shows: the bundle's, its headline grouped if it predates groups; computed for format 1. */
export function summaryOf(scores: ScoresRecords): RunSummary {
  return scores.summary
    ? withGroupedHeadline(scores.summary, scores.trials)
    : statsScorer().summarize(scores.trials)
}

/**
 * Makes the derived files of a bundle whose records are intact again, and seals it anew: a damaged report.md (or
 * report.html, spans.jsonl) is rendered from scores.json and traces.jsonl, the manifest rewritten over what the
 * folder then holds. `found` is the bundle as read in recover mode. Returns what was replaced and why; nothing
 * when the bundle is valid. A bundle whose records themselves are damaged is refused (BUNDLE_INVALID naming
 * them): re-rendering would only hide that.
 */
export async function rerenderDerivedFiles(found: RecoveredBundle): Promise<Replacement[]> {
  const { dir } = found
  if (found.problems.length === 0) return []
  const damaged = found.problems.filter((f) => !isRepairable(f))
  if (damaged.length > 0 || !found.metadata || !found.scores) {
    const files = [...new Set(damaged.map((f) => f.file))]
    const what =
      files.length > 0 ? `${files.join(', ')} ${files.length === 1 ? 'is' : 'are'}` : 'its records are'
    throw new AgentEvalOpsError(
      'BUNDLE_INVALID',
      [
        `the bundle at ${dir} cannot be re-rendered: ${what} damaged, and only report.md, report.html and ` +
          'spans.jsonl can be made again (from metadata.json, scores.json and traces.jsonl).',
        formatFindings(damaged.length > 0 ? damaged : found.problems),
        `Run 'agentevalops validate-bundle ${dir}' for every finding. If the run's staging folder is still ` +
          `there, 'agentevalops recover <runs>/.staging/<name>' makes a new bundle from it.`,
      ].join('\n'),
    )
  }
  const replacements = await replacementsOf(found)
  const metadata = found.metadata
  const files = await renderDerived(found, metadata, found.scores, replacements)
  await resealBundle(dir, {
    files,
    runId: metadata.runId,
    formatVersion: found.manifest?.formatVersion ?? metadata.schemaVersion,
    createdAt: found.manifest?.createdAt ?? metadata.finishedAt,
  })
  return replacements
}

/** A finding that replacing a derived file, or writing the manifest again, puts right. */
function isRepairable(finding: Finding): boolean {
  if (finding.file === MANIFEST_FILE) return finding.check !== 'format-version'
  return DERIVED_FILES.includes(finding.file) && REASONS.some(([check]) => check === finding.check)
}

/**
 * The derived files to replace: each one a finding names, and, when the manifest could not be read, every one the
 * bundle has (nothing vouches for them then). A derived file the bundle never had is not added.
 */
async function replacementsOf(found: RecoveredBundle): Promise<Replacement[]> {
  const reasons = new Map<string, string>()
  for (const [check, reason] of REASONS) {
    for (const f of found.problems) {
      if (f.check === check && DERIVED_FILES.includes(f.file) && !reasons.has(f.file))
        reasons.set(f.file, reason)
    }
  }
  if (!found.manifest) {
    for (const file of DERIVED_FILES) {
      if (!reasons.has(file) && (await hasFile(found.dir, file)))
        reasons.set(file, 'manifest.json unreadable')
    }
  }
  return DERIVED_FILES.filter((file) => reasons.has(file)).map((file) => ({
    file,
    reason: reasons.get(file)!,
  }))
}

async function hasFile(dir: string, file: string): Promise<boolean> {
  return (await lstat(join(dir, file)).catch(() => undefined)) !== undefined
}

async function renderDerived(
  found: RecoveredBundle,
  metadata: RunMetadata,
  scores: ScoresRecords,
  replacements: readonly Replacement[],
): Promise<{ path: string; data: string }[]> {
  const summary = summaryOf(scores)
  const trials = scores.trials.map((t) => ({ ...t, runId: metadata.runId }))
  const wanted = new Set(replacements.map((r) => r.file))
  const files: { path: string; data: string }[] = []
  if (wanted.has(REPORT_MD_FILE))
    files.push({ path: REPORT_MD_FILE, data: renderMarkdownReport({ metadata, trials, summary }) })
  if (wanted.has(HTML_REPORT_FILE) || wanted.has(SPANS_FILE)) {
    const derived = await derivedRunFiles({ metadata, trials, summary }).derivedFiles(found.events)
    for (const file of derived) {
      if (wanted.has(file.path) && 'data' in file && typeof file.data === 'string')
        files.push({ path: file.path, data: file.data })
    }
  }
  return files
}
