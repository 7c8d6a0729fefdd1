import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

let cached: string | undefined

/**
 * The installed agentevalops version, read from our own package.json. Walks up from this module because it runs
 * both from source (src/core) and from the build (dist/src/…), at different depths.
 */
export function sdkVersion(): string {
  if (cached) return cached
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 8; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string
        version?: string
      }
      if (pkg.name === 'agentevalops' && pkg.version) return (cached = pkg.version)
    } catch {
      // no package.json at this level: keep walking up
    }
    const parent = dirname(dir)
    if (parent === dir) break
    dir = parent
  }
  return (cached = '0.0.0-unknown')
}
