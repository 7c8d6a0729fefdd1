import { BUNDLE_CHECKS, CHECK_NAMES, inspectBundle, type CheckName } from '../../bundles/index.ts'
import { AgentEvalOpsError } from '../../core/index.ts'
import { statsSummaryRecomputer } from '../../scorers/index.ts'
import { formatCommandHelp } from '../command-help.ts'
import { parseCommandArgs, type Command } from '../command.ts'

/** What `validate-bundle --json` prints: one JSON document on stdout, whatever the verdict. */
export interface ValidateBundleJson {
  ok: boolean
  dir: string
  /** Trial records in scores.json (0 when it could not be read). */
  trials: number
  /** Lines of traces.jsonl that parsed as events. */
  events: number
  /** `check` is the stable name of the check that failed (see `validate-bundle --help`). */
  findings: { check: CheckName; file: string; message: string }[]
  /** What was not checked and why (a summary of another statistics method): no finding, `ok` stays as it is. */
  notes: string[]
}

export const validateBundleCommand: Command = {
  name: 'validate-bundle',
  summary: 'Check a result bundle: files, checksums, schemas and cross-file consistency',
  usage: '<dir> [options]',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } })
    if (values.help) {
      io.out(
        formatCommandHelp(validateBundleCommand, {
          notes: [
            'Checks that every file of the bundle is present and matches manifest.json (size and SHA-256), that\n' +
              'each file matches its schema, and that metadata, scores and traces agree with each other.\n' +
              'Prints one line per finding (file: problem), or one JSON document with --json.\n' +
              'A damaged or hostile folder only ever produces findings: nothing is followed through a symlink,\n' +
              'and traces.jsonl is streamed, so memory does not grow with its size.',
            formatChecks(),
          ],
          options: [
            [
              '--json',
              'Print { ok, dir, trials, events, findings: [{ check, file, message }], notes } on stdout',
            ],
          ],
          exitCodes: [
            [0, 'the bundle is valid'],
            [1, 'the bundle has findings (or the folder is not a bundle)'],
            [2, 'usage error (no folder, more than one, unknown option)'],
          ],
        }),
      )
      return 0
    }
    const [dir, ...extra] = positionals
    if (dir === undefined) throw new AgentEvalOpsError('USAGE', 'missing the bundle folder to validate')
    if (extra.length > 0)
      throw new AgentEvalOpsError('USAGE', `one bundle folder at a time (got ${positionals.length})`)

    const result = await inspectBundle(dir, { recomputeSummary: statsSummaryRecomputer })
    const trials = result.scores?.trials.length ?? 0
    if (values.json) {
      const report: ValidateBundleJson = {
        ok: result.findings.length === 0,
        dir,
        trials,
        events: result.eventCount,
        findings: result.findings.map(({ check, file, message }) => ({ check, file, message })),
        notes: result.notes,
      }
      io.out(JSON.stringify(report, null, 2))
      return report.ok ? 0 : 1
    }
    // On stderr, so that stdout stays one line per finding (or the ok line).
    for (const note of result.notes) io.err(`note: ${oneLine(note)}`)
    if (result.findings.length === 0) {
      io.out(`ok: ${dir} (${trials} trials, ${result.eventCount} events)`)
      return 0
    }
    // One finding per line, so CI logs and grep see every problem on its own.
    for (const finding of result.findings) io.out(`${printable(finding.file)}: ${oneLine(finding.message)}`)
    io.err(`invalid: ${dir} (${result.findings.length} finding${result.findings.length === 1 ? '' : 's'})`)
    return 1
  },
}

/** The checks by name: what a finding's `check` field (in --json) refers to. */
function formatChecks(): string {
  const width = Math.max(...CHECK_NAMES.map((name) => name.length))
  return [
    'Checks (the `check` of each --json finding):',
    ...CHECK_NAMES.map((name) => `  ${name.padEnd(width)}  ${BUNDLE_CHECKS[name]}`),
  ].join('\n')
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ')
}

/** A file name as found on disk may hold a newline or other control characters: shown escaped, on one line. */
function printable(file: string): string {
  return file.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1))
}
