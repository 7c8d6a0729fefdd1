import { createRequire } from 'node:module'
import { AgentEvalOpsError, sdkVersion } from '../../core/index.ts'
import { positionalArgs, type Command } from '../command.ts'

export const versionCommand: Command = {
  name: 'version',
  summary: 'Print the versions of agentevalops, Node and Vitest',
  usage: '',
  async run(args, io) {
    const positionals = positionalArgs(versionCommand, args, io)
    if (positionals === null) return 0
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
