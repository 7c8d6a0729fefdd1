// Acceptance of issue 3: `agentevalops init` in an empty npm project, then `vitest run --project evals` passes and
// writes a bundle under the project's runs/. Everything runs as real child processes in a throwaway project that
// sees agentevalops the way an installed copy looks: node_modules/agentevalops holds our package.json, bin/ and a
// dist/ built from the current sources with the repo's own tsup entries (no type declarations: nothing here reads
// them), while every other dependency is a link into this repo's node_modules. No network, no npm install.
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build as esbuild } from 'esbuild'
import { build, type Options } from 'tsup'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import tsupConfig from '../../tsup.config.ts'
import { UI_DIST_DIR, UI_ENTRIES, uiBuildOptions } from '../../src/reports/ui-bundle/index.ts'
import { npmInitPackageJson, runCli, runNode, type ChildResult } from './helpers.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '')
const VITEST_ENTRY = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')
/**
 * Entries of our node_modules a project must not share: caches that Vite and Vitest write into, and the optional
 * peer @anthropic-ai/sdk, which a project that calls no Anthropic model does not install.
 */
const NOT_LINKED = new Set(['.cache', '.vite', '.vite-temp', 'agentevalops', '@anthropic-ai'])

let base: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'aeo-init-accept-')))
})
afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true, maxRetries: 5 })
})

/** The repo's tsup options with absolute entries, building into `outDir` without declarations or source maps. */
function buildOptions(outDir: string): Options {
  if (typeof tsupConfig === 'function' || Array.isArray(tsupConfig)) {
    throw new Error('tsup.config.ts no longer exports a single options object: update this test')
  }
  const { entry } = tsupConfig
  if (!entry || Array.isArray(entry)) throw new Error('tsup.config.ts entry is not a name → file map')
  return {
    ...tsupConfig,
    entry: Object.fromEntries(Object.entries(entry).map(([name, file]) => [name, join(ROOT, file)])),
    config: false,
    dts: false,
    sourcemap: false,
    clean: false,
    silent: true,
    outDir,
  }
}

/** An empty npm project (only `packageJson`) whose node_modules resolves without a network, as described above. */
async function emptyProject(name: string, packageJson: object): Promise<string> {
  const root = join(base, name)
  const modules = join(root, 'node_modules')
  await mkdir(modules, { recursive: true })
  await writeFile(join(root, 'package.json'), `${JSON.stringify(packageJson, null, 2)}\n`)
  for (const entry of await readdir(join(ROOT, 'node_modules'))) {
    if (!NOT_LINKED.has(entry)) await symlink(join(ROOT, 'node_modules', entry), join(modules, entry))
  }
  const pkg = join(modules, 'agentevalops')
  await mkdir(pkg)
  await cp(join(ROOT, 'package.json'), join(pkg, 'package.json'))
  await cp(join(ROOT, 'bin'), join(pkg, 'bin'), { recursive: true })
  await build(buildOptions(join(pkg, 'dist')))
  // tsup's onSuccess builds the apps into the repo's dist/: the installed copy gets its own, as the package build does.
  for (const entry of UI_ENTRIES) {
    await esbuild({ ...uiBuildOptions(ROOT, entry), outdir: join(pkg, UI_DIST_DIR) })
  }
  return root
}

/** An eval of anthropicRunner in a project that did not install @anthropic-ai/sdk. */
const ANTHROPIC_EVAL = `import { anthropicRunner, defineTask, checksumOf } from 'agentevalops'
import { evalBenchmark } from 'agentevalops/plugin'

const task = defineTask({ id: 'hello', benchmark: 'sdk-missing', prompt: 'Say hello.' })
evalBenchmark({
  benchmark: {
    id: 'sdk-missing',
    version: '1',
    listTasks: async () => [task],
    info: async () => ({ id: 'sdk-missing', version: '1', datasetChecksum: checksumOf([task]) }),
  },
  runner: anthropicRunner({ model: 'claude-haiku-4-5', apiKey: 'not-used' }),
})
`

function explain(result: ChildResult): string {
  return `exit ${result.code} (signal ${result.signal})\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`
}

/** `agentevalops init`, then `vitest run --project evals`, in `root`; returns the one bundle it wrote. */
async function initAndRun(root: string, configFile: string): Promise<string> {
  const init = await runNode(
    [join('node_modules', 'agentevalops', 'bin', 'agentevalops.js'), 'init'],
    root,
    30_000,
  )
  expect(init.code, explain(init)).toBe(0)
  expect(init.stdout).toContain('  write   evals/example.eval.ts\n')
  expect(init.stdout).toContain('  write   configs/example.yaml\n')
  expect(init.stdout).toContain(`  write   ${configFile}\n`)

  const run = await runNode([VITEST_ENTRY, 'run', '--project', 'evals'], root, 90_000)
  expect(run.code, explain(run)).toBe(0)
  expect(run.stdout).toMatch(/Tests +3 passed \(3\)/)
  expect(run.stdout).toMatch(/3\/3 trials passed/)

  const bundles = (await readdir(join(root, 'runs'), { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => join(root, 'runs', entry.name))
  expect(bundles).toHaveLength(1)
  return bundles[0]!
}

describe('agentevalops init in an empty npm project, then vitest run --project evals', () => {
  it('passes and writes a valid bundle under runs/ ("type": "module", vitest.config.ts)', async () => {
    const root = await emptyProject('esm', {
      name: 'esm-app',
      version: '1.0.0',
      private: true,
      type: 'module',
    })
    const bundle = await initAndRun(root, 'vitest.config.ts')

    expect(await runCli('validate-bundle', bundle)).toMatchObject({ code: 0 })
    const scores = JSON.parse(await readFile(join(bundle, 'scores.json'), 'utf8')) as {
      trials: { taskId: string; outcome: string }[]
    }
    expect(scores.trials.map((t) => [t.taskId, t.outcome])).toEqual([
      ['arithmetic', 'passed'],
      ['capital', 'passed'],
      ['weather-tool', 'passed'],
    ])
    // The real pipeline's report.md is exactly what `report` renders again from the bundle alone.
    const report = await runCli('report', bundle)
    expect(report.code).toBe(0)
    expect(`${report.stdout}\n`).toBe(await readFile(join(bundle, 'report.md'), 'utf8'))

    // The built CLI of the installed package: doctor finds the project sound.
    const doctor = await runNode(
      [join('node_modules', 'agentevalops', 'bin', 'agentevalops.js'), 'doctor'],
      root,
      30_000,
    )
    expect(doctor.code, explain(doctor)).toBe(0)
    expect(doctor.stdout).toContain('All 4 checks passed.')

    // Without the optional peer, a runner that needs it says what to install (a harness failure, not the agent's).
    await writeFile(join(root, 'evals', 'anthropic.eval.ts'), ANTHROPIC_EVAL)
    const anthropic = await runNode(
      [VITEST_ENTRY, 'run', '--project', 'evals', 'evals/anthropic.eval.ts'],
      root,
      90_000,
    )
    expect(anthropic.code, explain(anthropic)).toBe(1)
    expect(anthropic.stdout + anthropic.stderr).toContain(
      'the Anthropic SDK (@anthropic-ai/sdk) is not installed',
    )
    expect(anthropic.stdout + anthropic.stderr).toContain('npm install --save-dev @anthropic-ai/sdk')
  }, 180_000)

  it('passes with the package.json `npm init -y` writes ("type": "commonjs", so vitest.config.mts)', async () => {
    const root = await emptyProject('cjs', npmInitPackageJson('cjs-app'))
    await initAndRun(root, 'vitest.config.mts')
  }, 180_000)
})
