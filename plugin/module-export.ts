// A value a RunConfig names by module and export (`module: ./agent.ts`, `export: agent`). The config-driven runners
// are built inside Vitest's worker, where a dynamic import goes through Vite: a TypeScript module loads as is,
// with the project's own Vite config (aliases, plugins), exactly as an eval file would import it.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { AgentEvalOpsError, errorMessage } from '../src/core/index.ts'

export interface ModuleRef {
  /** Absolute. */
  path: string
  /** The export's name; `default` for the default export. */
  exportName: string
  /** As the config wrote it, for messages and runnerInfo (never absolute: the bundle should not hold our paths). */
  shown: string
}

/**
 * Resolves `module` against the config's folder and checks the file is there, so a wrong path is a config error
 * when the run is planned, not a failure of every trial.
 */
export function moduleRef(module: string, exportName: string, baseDir: string, what: string): ModuleRef {
  const path = resolve(baseDir, module)
  if (!existsSync(path)) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${what}: module ${JSON.stringify(module)} does not exist (looked for ${path}).`,
      {
        hint: 'A module path is relative to the folder of the config file that names it.',
      },
    )
  }
  return { path, exportName, shown: `${module}#${exportName}` }
}

/** Imports the module (once per ref) and returns the export; a missing export is CONFIG_INVALID naming the ones there. */
export async function importExport(ref: ModuleRef, what: string): Promise<unknown> {
  let namespace: Record<string, unknown>
  try {
    namespace = (await import(/* @vite-ignore */ pathToFileURL(ref.path).href)) as Record<string, unknown>
  } catch (e) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${what}: module ${ref.path} could not be loaded: ${errorMessage(e)}`,
      {
        hint: 'Fix the module (it is imported as an eval file would be, TypeScript included), or the path in the config.',
        cause: e,
      },
    )
  }
  if (!Object.hasOwn(namespace, ref.exportName) || namespace[ref.exportName] === undefined) {
    const names = Object.keys(namespace).sort()
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `${what}: module ${ref.path} has no export ${JSON.stringify(ref.exportName)}.`,
      {
        hint: names.length > 0 ? `Its exports are: ${names.join(', ')}.` : 'It exports nothing.',
      },
    )
  }
  return namespace[ref.exportName]
}
