import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * The command that starts this CLI again in a child process (a shard of `run --parallel`): this Node, with the
 * flags it was started with, and the CLI's own entry module. The entry is found next to this code, which runs from
 * dist/src/cli/index.js, from a shared chunk at the root of dist/, or from source (src/cli/, under a TypeScript
 * loader that process.execArgv carries on).
 */
export function cliCommand(): string[] {
  for (const candidate of ['./index.js', './src/cli/index.js', './index.ts']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url))
    if (existsSync(path)) return [process.execPath, ...process.execArgv, path]
  }
  throw new Error(`agentevalops: cannot find its own CLI entry next to ${import.meta.url}`)
}
