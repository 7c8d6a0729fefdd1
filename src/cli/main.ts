import { errorMessage, isAgentEvalOpsError } from '../core/index.ts'
import type { Command } from './command.ts'
import { compareCommand } from './commands/compare.ts'
import { recoverCommand } from './commands/recover.ts'
import { mergeCommand } from './commands/merge.ts'
import { monitorCommand } from './commands/monitor.ts'
import { doctorCommand } from './commands/doctor.ts'
import { initCommand } from './commands/init.ts'
import { pruneCommand } from './commands/prune.ts'
import { reportCommand } from './commands/report.ts'
import { runCommand } from './commands/run.ts'
import { replayCommand } from './commands/replay.ts'
import { uploadCommand } from './commands/upload.ts'
import { validateBundleCommand } from './commands/validate-bundle.ts'
import { versionCommand } from './commands/version.ts'
import { viewCommand } from './commands/view.ts'
import { processIO, type CliIO } from './io.ts'
import { formatCommandUsage, formatUsage } from './usage.ts'

export const COMMANDS: readonly Command[] = [
  runCommand,
  reportCommand,
  validateBundleCommand,
  compareCommand,
  recoverCommand,
  mergeCommand,
  uploadCommand,
  replayCommand,
  monitorCommand,
  pruneCommand,
  viewCommand,
  initCommand,
  doctorCommand,
  versionCommand,
]

/**
 * Exit codes: 0 success, 1 the command found a problem or failed (for `run`: a gate or case failed), 2 the command
 * line or a config was wrong (nothing was run), 130 a run was interrupted.
 */
export async function main(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  const [name, ...args] = argv
  if (name === undefined) {
    io.err(formatUsage(COMMANDS))
    return 2
  }
  if (name === 'help' || name === '--help' || name === '-h') {
    const topic = args[0] === undefined ? undefined : COMMANDS.find((c) => c.name === args[0])
    io.out(topic ? formatCommandUsage(topic) : formatUsage(COMMANDS))
    return 0
  }
  const command = name === '--version' ? versionCommand : COMMANDS.find((c) => c.name === name)
  if (!command) {
    io.err(`agentevalops: unknown command '${name}'`)
    io.err("Run 'agentevalops --help' to list the commands.")
    return 2
  }
  try {
    return await command.run(args, io)
  } catch (e) {
    if (isAgentEvalOpsError(e, 'USAGE')) {
      io.err(`agentevalops ${command.name}: ${e.message}`)
      io.err(
        `Usage: agentevalops ${`${command.name} ${command.usage}`.trim()}  (see 'agentevalops ${command.name} --help')`,
      )
      return 2
    }
    io.err(`agentevalops ${command.name}: ${isAgentEvalOpsError(e) ? e.message : unexpected(e)}`)
    return 1
  }
}

function unexpected(e: unknown): string {
  return e instanceof Error && e.stack
    ? `unexpected error: ${e.stack}`
    : `unexpected error: ${errorMessage(e)}`
}
