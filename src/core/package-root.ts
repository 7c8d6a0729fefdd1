import { readFileSync } from 'node:fs'
import { dirname, isAbsolute, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface OwnPackage {
  /** The folder holding agentevalops' package.json: the repository, or node_modules/agentevalops. */
  root: string
  version: string
}

let cached: OwnPackage | null | undefined

/**
 * agentevalops' own package folder. Walks up from this module because it runs both from source (src/core) and
 * from the build (dist/, a chunk at another depth); null only when the files were moved out of any package.
 */
export function ownPackage(): OwnPackage | null {
  if (cached !== undefined) return cached
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 8; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string
        version?: string
      }
      if (pkg.name === 'agentevalops' && pkg.version) return (cached = { root: dir, version: pkg.version })
    } catch {
      // no package.json at this level: keep walking up
    }
    const parent = dirname(dir)
    if (parent === dir) break
    dir = parent
  }
  return (cached = null)
}

/**
 * A file the package ships (docs/, datasets/), as a path that opens where the user is: relative to the working
 * folder when inside it (`docs/x.md` in this repository, `node_modules/agentevalops/docs/x.md` in a project),
 * absolute otherwise. Error messages name docs this way, so the path resolves wherever the package is installed.
 */
export function shippedPath(...segments: string[]): string {
  const own = ownPackage()
  const path = own ? join(own.root, ...segments) : join(...segments)
  const fromCwd = relative(process.cwd(), path)
  return fromCwd && !fromCwd.startsWith('..') && !isAbsolute(fromCwd) ? fromCwd : path
}

/** `shippedPath('docs', name)`: for "see …" in error messages and hints. */
export function docPath(name: string): string {
  return shippedPath('docs', name)
}
