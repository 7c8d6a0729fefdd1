import type { BuildOptions } from 'esbuild'
import { join } from 'node:path'

/** The front-end apps under ui/: each is one entry, ui/<entry>/main.tsx, built into one script and one style. */
export const UI_ENTRIES = ['report', 'view'] as const
export type UiEntry = (typeof UI_ENTRIES)[number]

/** Where the package's build puts them, relative to the package root: dist/ui/<entry>.js and .css. */
export const UI_DIST_DIR = join('dist', 'ui')

/**
 * The one way an entry is built, from source in the repository and by the package's build alike, so the page a
 * test renders is the page a user gets. The output goes inline into an HTML file under a hash-based CSP: one
 * classic script (no module graph to fetch), all ASCII (its hash cannot depend on how bytes are decoded), and
 * esbuild escapes `</script` inside string literals.
 */
export function uiBuildOptions(root: string, entry: UiEntry): BuildOptions {
  return {
    entryPoints: { [entry]: join(root, 'ui', entry, 'main.tsx') },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    charset: 'ascii',
    legalComments: 'none',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: join(root, UI_DIST_DIR),
    logLevel: 'silent',
  }
}
