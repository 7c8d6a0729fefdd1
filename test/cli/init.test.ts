// `agentevalops init`, in process: what it writes, what it never overwrites, and that its scaffold is sound.
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { builtinRegistry } from '../../plugin/builtin-adapters.ts'
import { exampleConfigTemplate } from '../../src/cli/templates/example-config.ts'
import { exampleEvalTemplate } from '../../src/cli/templates/example-eval.ts'
import {
  EVALS_PROJECT_ENTRY,
  PLUGIN_IMPORT,
  vitestConfigTemplate,
} from '../../src/cli/templates/vitest-config.ts'
import { loadRunConfig } from '../../src/config/index.ts'
import { tempDir } from '../bundles/fixtures.ts'
import { npmInitPackageJson, runCli } from './helpers.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const MODULE_PACKAGE = `${JSON.stringify({ name: 'app', version: '1.0.0', type: 'module' }, null, 2)}\n`

let project: Awaited<ReturnType<typeof tempDir>>
beforeEach(async () => {
  project = await tempDir('aeo-init-')
})
afterEach(async () => project.remove())

async function read(file: string): Promise<string> {
  return readFile(join(project.path, file), 'utf8')
}

describe('agentevalops init', () => {
  it('exits 2 without a package.json, telling to run npm init -y, and writes nothing', async () => {
    const { code, stdout, stderr } = await runCli('init', '--dir', project.path)
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain(`no package.json in ${project.path}`)
    expect(stderr).toContain('Run `npm init -y` there first')
    expect(existsSync(join(project.path, 'evals'))).toBe(false)
    expect(existsSync(join(project.path, 'vitest.config.ts'))).toBe(false)

    expect((await runCli('init', '--dir', join(project.path, 'missing'))).code).toBe(2)
    expect((await runCli('init', project.path)).code).toBe(2) // the folder goes in --dir
    await writeFile(join(project.path, 'package.json'), '{ not json')
    const broken = await runCli('init', '--dir', project.path)
    expect(broken.code).toBe(2)
    expect(broken.stderr).toMatch(/package\.json is not valid JSON/)
  })

  it('writes the example eval, the example config and a vitest.config.ts with unit + evals projects', async () => {
    await writeFile(join(project.path, 'package.json'), MODULE_PACKAGE)
    const { code, lines, stderr } = await runCli('init', '--dir', project.path)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(lines.slice(0, 4)).toEqual([
      `agentevalops init in ${project.path}`,
      '  write   evals/example.eval.ts',
      '  write   configs/example.yaml',
      '  write   vitest.config.ts',
    ])
    expect(lines).toContain('  npm install --save-dev agentevalops vitest')
    expect(await read('evals/example.eval.ts')).toBe(exampleEvalTemplate)
    expect(await read('configs/example.yaml')).toBe(exampleConfigTemplate)
    expect(await read('vitest.config.ts')).toBe(vitestConfigTemplate)
    expect(vitestConfigTemplate).toContain(`name: 'unit'`)
    expect(vitestConfigTemplate).toContain(EVALS_PROJECT_ENTRY)
    expect(await read('package.json')).toBe(MODULE_PACKAGE)
  })

  it('skips existing files without --force (exit 0, one message each) and overwrites them with --force', async () => {
    await writeFile(join(project.path, 'package.json'), MODULE_PACKAGE)
    expect((await runCli('init', '--dir', project.path)).code).toBe(0)
    await writeFile(join(project.path, 'evals/example.eval.ts'), '// mine\n')
    await writeFile(join(project.path, 'configs/example.yaml'), '# mine\n')
    await writeFile(join(project.path, 'vitest.config.ts'), `${vitestConfigTemplate}// mine\n`)

    const again = await runCli('init', '--dir', project.path)
    expect(again.code).toBe(0)
    expect(again.lines.slice(1, 4)).toEqual([
      '  skip    evals/example.eval.ts (exists; pass --force to overwrite)',
      '  skip    configs/example.yaml (exists; pass --force to overwrite)',
      '  keep    vitest.config.ts (already uses agentEvalOps())',
    ])
    expect(await read('evals/example.eval.ts')).toBe('// mine\n')
    expect(await read('configs/example.yaml')).toBe('# mine\n')

    const forced = await runCli('init', '--force', '--dir', project.path)
    expect(forced.code).toBe(0)
    expect(forced.lines.slice(1, 4)).toEqual([
      '  replace evals/example.eval.ts',
      '  replace configs/example.yaml',
      '  keep    vitest.config.ts (already uses agentEvalOps())',
    ])
    expect(await read('evals/example.eval.ts')).toBe(exampleEvalTemplate)
    expect(await read('configs/example.yaml')).toBe(exampleConfigTemplate)
    // A Vitest config is the user's: not even --force replaces it.
    expect(await read('vitest.config.ts')).toBe(`${vitestConfigTemplate}// mine\n`)
  })

  it('never modifies an existing Vitest or Vite config: prints the project entry to add instead', async () => {
    await writeFile(join(project.path, 'package.json'), MODULE_PACKAGE)
    const mine = `import { defineConfig } from 'vitest/config'\nexport default defineConfig({ test: {} })\n`
    await writeFile(join(project.path, 'vitest.config.mts'), mine)
    const { code, lines, stdout } = await runCli('init', '--dir', project.path, '--force')
    expect(code).toBe(0)
    expect(lines).toContain('  keep    vitest.config.mts (exists; init never modifies it)')
    expect(lines).toContain(`    ${PLUGIN_IMPORT}`)
    expect(lines).toContain(`    ${EVALS_PROJECT_ENTRY},`)
    expect(stdout).toContain("{ plugins: [agentEvalOps()], test: { name: 'evals' } },")
    expect(await read('vitest.config.mts')).toBe(mine)
    expect(existsSync(join(project.path, 'vitest.config.ts'))).toBe(false)

    // A vite.config.* is what Vitest reads when there is no vitest.config.*: writing one would shadow it.
    await rm(join(project.path, 'vitest.config.mts'))
    await writeFile(join(project.path, 'vite.config.js'), 'export default {}\n')
    const vite = await runCli('init', '--dir', project.path)
    expect(vite.lines).toContain('  keep    vite.config.js (exists; init never modifies it)')
    expect(existsSync(join(project.path, 'vitest.config.ts'))).toBe(false)
  })

  it('writes vitest.config.mts when package.json is not "type": "module" (what npm init -y makes)', async () => {
    const npmInit = npmInitPackageJson('app')
    await writeFile(join(project.path, 'package.json'), JSON.stringify(npmInit, null, 2))
    const { code, lines } = await runCli('init', '--dir', project.path)
    expect(code).toBe(0)
    expect(lines).toContain('  write   vitest.config.mts')
    expect(await read('vitest.config.mts')).toBe(vitestConfigTemplate)
    expect(existsSync(join(project.path, 'vitest.config.ts'))).toBe(false)
  })

  it('does not suggest installing what package.json already lists', async () => {
    const pkg = { name: 'app', type: 'module', devDependencies: { agentevalops: '^0.1.0', vitest: '^4.1.0' } }
    await writeFile(join(project.path, 'package.json'), JSON.stringify(pkg))
    const { stdout } = await runCli('init', '--dir', project.path)
    expect(stdout).not.toContain('npm install')
  })

  it('adds runs/ to .gitignore: creates it, appends to it, or leaves it alone when it names runs/', async () => {
    await writeFile(join(project.path, 'package.json'), MODULE_PACKAGE)
    const created = await runCli('init', '--dir', project.path)
    expect(created.code).toBe(0)
    expect(created.lines).toContain('  write   .gitignore (ignores runs/, where result bundles go)')
    const fresh = await read('.gitignore')
    expect(fresh.split('\n')).toContain('runs/')

    // A .gitignore of the user's, without a newline at its end: runs/ goes on a line of its own after it.
    await writeFile(join(project.path, '.gitignore'), 'node_modules/\n*.log')
    const appended = await runCli('init', '--dir', project.path)
    expect(appended.lines).toContain('  update  .gitignore (added runs/, where result bundles go)')
    const text = await read('.gitignore')
    expect(text.startsWith('node_modules/\n*.log\n')).toBe(true)
    expect(text.endsWith('\nruns/\n')).toBe(true)

    // Already ignored, in any usual spelling: not touched, and said so.
    for (const line of ['runs/', '/runs', 'runs', '/runs/*', '**/runs/']) {
      const mine = `node_modules/\n  ${line}  \n`
      await writeFile(join(project.path, '.gitignore'), mine)
      const kept = await runCli('init', '--dir', project.path)
      expect(kept.lines).toContain('  keep    .gitignore (already ignores runs/)')
      expect(await read('.gitignore')).toBe(mine)
    }
  })

  it('exits 1 when a file cannot be written (a file where the evals folder should be)', async () => {
    await writeFile(join(project.path, 'package.json'), MODULE_PACKAGE)
    await writeFile(join(project.path, 'evals'), 'not a folder')
    const { code, stderr } = await runCli('init', '--dir', project.path)
    expect(code).toBe(1)
    expect(stderr).toMatch(/agentevalops init: .*(EEXIST|ENOTDIR)/)
  })
})

describe('the scaffold', () => {
  it('configs/example.yaml is a valid RunConfig naming built-in adapters', async () => {
    const file = join(project.path, 'example.yaml')
    await writeFile(file, exampleConfigTemplate)
    const { config } = await loadRunConfig(file, builtinRegistry())
    expect(config).toMatchObject({
      name: 'example',
      benchmark: { id: 'toy', filter: { expectedOutcome: 'passed' } },
      agent: { runner: 'mock-scripted' },
      gate: 'each',
    })
  })

  describe('type-checks under strict TypeScript against the package', () => {
    // Inside the repo, so `vitest/config` resolves from our node_modules; `agentevalops/*` map to the sources.
    const dir = join(ROOT, 'node_modules', '.cache', 'agentevalops-test', `init-${process.pid}-${Date.now()}`)
    beforeAll(async () => {
      await mkdir(join(dir, 'evals'), { recursive: true })
      await writeFile(join(dir, 'evals', 'example.eval.ts'), exampleEvalTemplate)
      await writeFile(join(dir, 'vitest.config.ts'), vitestConfigTemplate)
    })
    afterAll(async () => rm(dir, { recursive: true, force: true }))

    it('evals/example.eval.ts and vitest.config.ts compile without errors', () => {
      const files = [join(dir, 'evals', 'example.eval.ts'), join(dir, 'vitest.config.ts')]
      const program = ts.createProgram(files, {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        allowImportingTsExtensions: true,
        verbatimModuleSyntax: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
        paths: {
          agentevalops: [join(ROOT, 'src', 'index.ts')],
          'agentevalops/adapters': [join(ROOT, 'src', 'adapters.ts')],
          'agentevalops/plugin': [join(ROOT, 'plugin', 'index.ts')],
          'agentevalops/matchers': [join(ROOT, 'plugin', 'matchers.ts')],
        },
      })
      const diagnostics = files.flatMap((file) => [
        ...program.getSyntacticDiagnostics(program.getSourceFile(file)),
        ...program.getSemanticDiagnostics(program.getSourceFile(file)),
      ])
      const text = diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
      expect(text).toEqual([])
    }, 60_000)
  })
})
