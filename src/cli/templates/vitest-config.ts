/** The evals project entry of a Vitest config, as `init` writes it and prints it for an existing config. */
export const EVALS_PROJECT_ENTRY = `{ plugins: [agentEvalOps()], test: { name: 'evals' } }`

export const PLUGIN_IMPORT = `import { agentEvalOps } from 'agentevalops/plugin'`

/** A Vitest config with two projects: the project's ordinary tests, and its agent evaluations. */
export const vitestConfigTemplate = `// Written by \`agentevalops init\`. Two Vitest projects:
//   npx vitest run --project unit    your ordinary tests
//   npx vitest run --project evals   agent evaluations (evals/**/*.eval.ts); bundles land in runs/<runId>/
import { defineConfig } from 'vitest/config'
${PLUGIN_IMPORT}

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/**/*.test.ts', 'src/**/*.test.ts'] } },
      ${EVALS_PROJECT_ENTRY},
    ],
  },
})
`
