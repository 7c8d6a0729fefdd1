/// <reference types="vitest/config" />
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'
import { AgentEvalOpsError } from '../src/core/index.ts'

export interface AgentEvalOpsOptions {
  /** Eval files of this project. Default: evals/**\/*.eval.ts */
  include?: string[]
  /** Where bundles are written, relative to the Vitest root. Default: runs; AGENTEVALOPS_RUNS_DIR overrides. */
  runsDir?: string
  /** In-flight trials per eval file. Default 10; AGENTEVALOPS_MAX_CONCURRENCY overrides. */
  maxConcurrency?: number
  /** Per-case timeout in ms (a backstop: limits.maxWallSeconds is the real per-trial control). Default 10 min. */
  testTimeout?: number
  /** Free-form labels stamped into metadata.json. */
  labels?: Record<string, string>
}

/**
 * The Vite plugin placed inside the evals project: project-scoped options go through `config`, and the bundle
 * reporter is pushed into the root config from `configureVitest` (reporters are root-only; pushing there also keeps
 * Vitest's automatic github-actions reporter).
 */
export function agentEvalOps(options: AgentEvalOpsOptions = {}): Plugin {
  const maxConcurrency = resolveConcurrency(options.maxConcurrency)
  return {
    name: 'agentevalops',
    config() {
      return {
        test: {
          include: options.include ?? ['evals/**/*.eval.ts'],
          setupFiles: [ownFile('setup')],
          testTimeout: options.testTimeout ?? 600_000,
          maxConcurrency,
        },
      }
    },
    // Vitest awaits this hook (Promise.all over plugins) though its type says void. The import is lazy so that eval
    // workers, which load this module for evalBenchmark(), never load the reporter.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    async configureVitest({ vitest, project }) {
      const { BundleReporter } = await import('../reporters/bundle-reporter.ts')
      vitest.config.reporters.push(
        new BundleReporter({
          project: project.name,
          runsDir: process.env.AGENTEVALOPS_RUNS_DIR || options.runsDir || 'runs',
          labels: options.labels ?? {},
        }),
      )
    },
  }
}

function resolveConcurrency(fromOptions: number | undefined): number {
  const raw = process.env.AGENTEVALOPS_MAX_CONCURRENCY
  const value = raw === undefined || raw === '' ? (fromOptions ?? 10) : Number(raw)
  if (!Number.isInteger(value) || value < 1) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `max concurrency must be a whole number ≥ 1, got ${raw ?? fromOptions}.`,
      {
        hint: 'Fix AGENTEVALOPS_MAX_CONCURRENCY or the maxConcurrency option of agentEvalOps().',
      },
    )
  }
  return value
}

/**
 * A module of ours in plugin/: .ts when running from source, .js from the build, where this code may sit in a
 * shared chunk at the root of dist/ rather than in dist/plugin/.
 */
function ownFile(name: string): string {
  for (const candidate of [`./${name}.js`, `./plugin/${name}.js`, `./${name}.ts`]) {
    const path = fileURLToPath(new URL(candidate, import.meta.url))
    if (existsSync(path)) return path
  }
  throw new Error(`agentevalops: cannot find its own ${name} module next to ${import.meta.url}`)
}
