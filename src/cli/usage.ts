import type { Command } from './command.ts'

export function formatUsage(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => `${c.name} ${c.usage}`.trim().length))
  const list = commands.map((c) => `  ${`${c.name} ${c.usage}`.trim().padEnd(width)}  ${c.summary}`)
  return [
    'Usage: agentevalops <command> [options]',
    '',
    'Commands:',
    ...list,
    `  ${'help'.padEnd(width)}  Show this help`,
    '',
    "Run 'agentevalops <command> --help' for a command's options.",
  ].join('\n')
}

export function formatCommandUsage(command: Command): string {
  return `Usage: agentevalops ${`${command.name} ${command.usage}`.trim()}\n\n${command.summary}`
}
