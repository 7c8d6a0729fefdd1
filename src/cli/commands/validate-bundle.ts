import { inspectBundle } from '../../bundles/index.ts'
import { AgentEvalOpsError } from '../../core/index.ts'
import { positionalArgs, type Command } from '../command.ts'

export const validateBundleCommand: Command = {
  name: 'validate-bundle',
  summary: 'Check a result bundle: files, checksums, schemas and cross-file consistency',
  usage: '<dir>',
  async run(args, io) {
    const positionals = positionalArgs(validateBundleCommand, args, io)
    if (positionals === null) return 0
    const [dir, ...extra] = positionals
    if (dir === undefined) throw new AgentEvalOpsError('USAGE', 'missing the bundle folder to validate')
    if (extra.length > 0)
      throw new AgentEvalOpsError('USAGE', `one bundle folder at a time (got ${positionals.length})`)

    const result = await inspectBundle(dir)
    if (result.findings.length === 0) {
      io.out(`ok: ${dir} (${result.scores?.trials.length ?? 0} trials, ${result.eventCount} events)`)
      return 0
    }
    // One finding per line, so CI logs and grep see every problem on its own.
    for (const finding of result.findings) io.out(`${finding.file}: ${oneLine(finding.message)}`)
    io.err(`invalid: ${dir} (${result.findings.length} finding${result.findings.length === 1 ? '' : 's'})`)
    return 1
  },
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ')
}
