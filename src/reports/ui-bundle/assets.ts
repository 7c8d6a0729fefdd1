import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type * as Esbuild from 'esbuild'
import { AgentEvalOpsError } from '../../core/index.ts'
import { UI_DIST_DIR, uiBuildOptions, type UiEntry } from './build-options.ts'

/** A front-end app as the HTML that embeds it needs it: the script and the style, as text. */
export interface UiAsset {
  script: string
  style: string
}

const built = new Map<UiEntry, UiAsset>()

/**
 * The built app `entry`. Run from the package's build (dist/), it is the file the build wrote beside it; run from
 * the repository's sources (tests, `vitest` in this repo), it is built from ui/ on first use, so a change to the app
 * shows in the next test run without a build step. Built once a process.
 */
export function uiAsset(entry: UiEntry): UiAsset {
  let asset = built.get(entry)
  if (!asset) {
    const here = fileURLToPath(import.meta.url)
    const root = packageRoot(here)
    const fromSource = !here.startsWith(join(root, 'dist') + sep) && existsSync(join(root, 'ui', entry))
    asset = fromSource ? buildFromSource(root, entry) : readBuilt(root, entry)
    built.set(entry, asset)
  }
  return asset
}

/**
 * The agentevalops package's own folder: the nearest package.json named agentevalops. Not merely the nearest one:
 * a copy of the code bundled elsewhere (a test's build of the CLI, with a package.json of its own for "type") still
 * belongs to the package it was built from.
 */
function packageRoot(from: string): string {
  for (let dir = dirname(from); dir !== dirname(dir); dir = dirname(dir)) {
    if (packageName(join(dir, 'package.json')) === PACKAGE_NAME) return dir
  }
  throw new AgentEvalOpsError(
    'INFRA_FAILURE',
    `no package.json of agentevalops above ${from}: the agentevalops package is incomplete; reinstall it`,
  )
}

const PACKAGE_NAME = 'agentevalops'

function packageName(path: string): string | undefined {
  if (!existsSync(path)) return undefined
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { name?: string }).name
  } catch {
    return undefined
  }
}

function readBuilt(root: string, entry: UiEntry): UiAsset {
  const base = join(root, UI_DIST_DIR, entry)
  try {
    return { script: readFileSync(`${base}.js`, 'utf8'), style: readFileSync(`${base}.css`, 'utf8') }
  } catch {
    throw new AgentEvalOpsError(
      'INFRA_FAILURE',
      `the ${entry} app is missing from ${join(root, UI_DIST_DIR)}: reinstall agentevalops, or run \`npm run build\` in its repository`,
    )
  }
}

function buildFromSource(root: string, entry: UiEntry): UiAsset {
  // esbuild is a build tool of the repository, not a dependency of the package: loaded only here.
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild
  const result = esbuild.buildSync({ ...uiBuildOptions(root, entry), write: false })
  const text = (ext: string): string =>
    result.outputFiles.find((f) => f.path.endsWith(`${sep}${entry}${ext}`))?.text ?? ''
  return { script: text('.js'), style: text('.css') }
}
