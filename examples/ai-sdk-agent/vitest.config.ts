// Runs this folder's eval file with the agentevalops plugin, as a project of your own would (there the import is
// `from 'agentevalops/plugin'`). Bundles go to examples/ai-sdk-agent/runs/ unless AGENTEVALOPS_RUNS_DIR says
// otherwise.
import { defineConfig } from 'vitest/config'
import { agentEvalOps } from '../../plugin/index.ts'

export default defineConfig({
  root: import.meta.dirname,
  // The repository's cache folder, so running the example leaves no node_modules/ inside it.
  cacheDir: '../../node_modules/.vite/ai-sdk-agent',
  test: {
    projects: [{ plugins: [agentEvalOps({ include: ['*.eval.ts'] })], test: { name: 'evals' } }],
  },
})
