import { existsSync } from 'node:fs'
import { build } from 'esbuild'
import { defineConfig } from 'tsup'
import { UI_ENTRIES, uiBuildOptions } from './src/reports/ui-bundle/build-options.ts'

export default defineConfig({
  entry: {
    'src/index': 'src/index.ts',
    'src/adapters': 'src/adapters.ts',
    'src/cli/index': 'src/cli/index.ts',
    'plugin/index': 'plugin/index.ts',
    'plugin/matchers': 'plugin/matchers.ts',
    'plugin/setup': 'plugin/setup.ts',
    'plugin/config-eval': 'plugin/config-eval.ts',
    'reporters/index': 'reporters/index.ts',
  },
  format: ['esm'],
  target: 'node20',
  // Declarations for what the package exports; the CLI and the eval/setup files are run, never imported.
  dts: {
    entry: ['src/index.ts', 'src/adapters.ts', 'plugin/index.ts', 'plugin/matchers.ts', 'reporters/index.ts'],
  },
  clean: true,
  splitting: true,
  sourcemap: true,
  outDir: 'dist',
  external: ['vitest', 'vite', /^vitest\//],
  // Bundled, so that only the parts of zod the package uses load: its index imports every locale.
  noExternal: ['zod'],
  // The front-end apps (ui/), into dist/ui/ where src/reports/ui-bundle/assets.ts reads them.
  onSuccess: async () => {
    const root = process.cwd()
    for (const entry of UI_ENTRIES) {
      if (existsSync(`ui/${entry}/main.tsx`)) await build(uiBuildOptions(root, entry))
    }
  },
})
