import { defineConfig } from 'tsup'

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
})
