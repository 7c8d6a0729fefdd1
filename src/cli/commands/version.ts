import { parseArgs } from 'node:util'
import { createRequire } from 'node:module'
import { AgentEvalOpsError, sdkVersion } from '../../core/index.ts'
import { usageErrors, type Command } from '../command.ts'
import { formatCommandUsage } from '../usage.ts'

export const versionCommand: Command = {
  name: 'version',
  summary: 'Print the versions of agentevalops, Node and Vitest',
  usage: '',
  async run(args, io) {
    const { values, positionals } = usageErrors(() =>
      parseArgs({
        args: [...args],
        options: { help: { type: 'boolean', short: 'h' } },
        allowPositionals: true,
      }),
    )
    if (values.help) {
      io.out(formatCommandUsage(versionCommand))
      return 0
    }
    if (positionals.length > 0) {
      throw new AgentEvalOpsError('USAGE', `version takes no arguments (got ${positionals.join(' ')})`)
    }
    io.out(`agentevalops ${sdkVersion()}`)
    io.out(`node ${process.version}`)
    io.out(`vitest ${vitestVersion()}`)
    return 0
  },
}

/** Vitest is the user's dependency, not ours: report the one that resolves from here, or that there is none. */
function vitestVersion(): string {
  try {
    const pkg = createRequire(import.meta.url)('vitest/package.json') as { version?: unknown }
    return typeof pkg.version === 'string' ? pkg.version : 'unknown'
  } catch {
    return 'not installed'
  }
}
