import { AgentEvalOpsError } from '../core/index.ts'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import type { CliIO } from './io.ts'
import { formatCommandUsage } from './usage.ts'

export interface Command {
  readonly name: string
  /** One line for the command list of `agentevalops --help`. */
  readonly summary: string
  /** Arguments after the command name, e.g. `<dir>`. */
  readonly usage: string
  /** Returns the process exit code. Throws a USAGE error for bad arguments. */
  run(args: readonly string[], io: CliIO): Promise<number>
}

/**
 * Runs a parseArgs call with its errors turned into USAGE errors, so every command reports bad arguments the same
 * way (exit code 2 and a usage hint).
 */
export function usageErrors<T>(parse: () => T): T {
  try {
    return parse()
  } catch (e) {
    throw new AgentEvalOpsError('USAGE', e instanceof Error ? e.message : String(e))
  }
}

type OptionsConfig = NonNullable<ParseArgsConfig['options']>
const HELP = { help: { type: 'boolean', short: 'h' } } as const

/**
 * A command's arguments parsed with its own options plus `-h/--help`, positionals allowed, and bad arguments
 * turned into USAGE errors.
 */
export function parseCommandArgs<O extends OptionsConfig>(args: readonly string[], options: O) {
  const config = { args: [...args], options: { ...HELP, ...options }, allowPositionals: true } as const
  return usageErrors(() => parseArgs<typeof config>(config))
}

/**
 * The positional arguments of a command that takes no options of its own but `--help`; null when help was asked
 * for and printed, so the command returns 0 at once.
 */
export function positionalArgs(command: Command, args: readonly string[], io: CliIO): string[] | null {
  const { values, positionals } = parseCommandArgs(args, {})
  if (values.help) {
    io.out(formatCommandUsage(command))
    return null
  }
  return positionals
}
