import type { Command } from './command.ts'
import { formatCommandUsage } from './usage.ts'

/** The long help of a command (`agentevalops <command> --help`): its options and what each exit code means. */
export interface CommandHelp {
  /** Flag as typed (`--output <file>`) and what it does. */
  options?: readonly (readonly [flag: string, description: string])[]
  exitCodes: readonly (readonly [code: number, meaning: string])[]
  /** Extra paragraphs after the summary, e.g. what the command never does. */
  notes?: readonly string[]
}

export function formatCommandHelp(command: Command, help: CommandHelp): string {
  const options: (readonly [string, string])[] = [...(help.options ?? []), ['-h, --help', 'Show this help']]
  const flagWidth = Math.max(...options.map(([flag]) => flag.length))
  const sections = [formatCommandUsage(command)]
  if (help.notes && help.notes.length > 0) sections.push(help.notes.join('\n\n'))
  sections.push(
    ['Options:', ...options.map(([flag, text]) => `  ${flag.padEnd(flagWidth)}  ${text}`)].join('\n'),
  )
  sections.push(
    ['Exit codes:', ...help.exitCodes.map(([code, text]) => `  ${String(code).padEnd(3)}  ${text}`)].join(
      '\n',
    ),
  )
  return sections.join('\n\n')
}
