// `agentevalops doctor`, in process against throwaway projects.
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { API_KEY_VARIABLES, checkNode } from '../../src/cli/commands/doctor.ts'
import { tempDir } from '../bundles/fixtures.ts'
import { runCli } from './helpers.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const OWN = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
const VITEST_VERSION = (
  JSON.parse(await readFile(join(ROOT, 'node_modules', 'vitest', 'package.json'), 'utf8')) as {
    version: string
  }
).version

let project: Awaited<ReturnType<typeof tempDir>>
beforeEach(async () => {
  project = await tempDir('aeo-doctor-')
  // The caller's own settings must not steer the checks; tests stub what they need.
  vi.stubEnv('AGENTEVALOPS_RUNS_DIR', undefined)
  for (const name of API_KEY_VARIABLES) vi.stubEnv(name, undefined)
  for (const name of Object.keys(process.env).filter((n) => n.startsWith('AGENTEVALOPS_')))
    vi.stubEnv(name, undefined)
})
afterEach(async () => {
  vi.unstubAllEnvs()
  await project.remove()
})

/** A project whose node_modules holds vitest (linked to ours) and `packages` (name → files), as npm would. */
async function makeProject(
  packages: Record<string, Record<string, string>> = {},
  dependencies: string[] = Object.keys(packages),
): Promise<string> {
  const root = project.path
  const pkg = { name: 'app', version: '1.0.0', type: 'module', devDependencies: {} as Record<string, string> }
  for (const name of ['vitest', ...dependencies]) pkg.devDependencies[name] = '*'
  await writeFile(join(root, 'package.json'), JSON.stringify(pkg, null, 2))
  await mkdir(join(root, 'node_modules'))
  await symlink(join(ROOT, 'node_modules', 'vitest'), join(root, 'node_modules', 'vitest'), 'dir')
  for (const [name, files] of Object.entries(packages)) {
    for (const [file, content] of Object.entries(files)) {
      await mkdir(join(root, 'node_modules', name), { recursive: true })
      await writeFile(join(root, 'node_modules', name, file), content)
    }
  }
  return root
}

function pluginPackage(name: string, adapters: string | null): Record<string, string> {
  const files: Record<string, string> = {
    'package.json': JSON.stringify({
      name,
      version: '1.2.3',
      type: 'module',
      agentevalops: { adapters: './adapters.js' },
    }),
  }
  if (adapters !== null) files['adapters.js'] = adapters
  return files
}

const GOOD_ADAPTERS = `export function register(registry) {
  registry.register('runner', 'good-echo', () => ({
    runnerInfo: () => ({ name: 'good-echo', kind: 'test', config: {} }),
    run: async (task) => ({ finalAnswer: task.prompt, success: true }),
  }))
}
`

describe('agentevalops doctor', () => {
  it('passes every check in a sound project and lists the built-in adapters, exit 0', async () => {
    const root = await makeProject()
    const { code, lines, stderr } = await runCli('doctor', '--dir', root)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(lines[0]).toMatch(new RegExp(`^agentevalops \\d+\\.\\d+\\.\\d+\\S* doctor: ${root}$`))
    expect(lines).toContain(`  ok    node     ${process.version} satisfies engines ${OWN.engines.node}`)
    expect(lines.find((l) => l.includes(' vitest '))).toMatch(
      new RegExp(`^ {2}ok {4}vitest {3}${VITEST_VERSION.replace(/\./g, '\\.')} from /`),
    )
    expect(lines).toContain(`  ok    runs     ${join(root, 'runs')} is writable`)
    expect(lines).toContain('  ok    plugins  0 adapter packages loaded')
    expect(lines).toContain('  runner     anthropic         built-in')
    expect(lines).toContain('             callable          built-in')
    expect(lines).toContain('             command           built-in')
    expect(lines).toContain('             harbor-oracle     built-in')
    expect(lines).toContain('             mock-scripted     built-in')
    expect(lines).toContain('  benchmark  dataset           built-in')
    expect(lines).toContain('             toy               built-in')
    expect(lines).toContain('             tool-access       built-in')
    expect(lines.at(-1)).toBe('All 4 checks passed.')
    // The probe left nothing behind, not even the runs folder it had to create.
    expect(existsSync(join(root, 'runs'))).toBe(false)
  })

  it('names the API-key variables that are set, never their values', async () => {
    const root = await makeProject()
    const secrets = ['sk-ant-very-secret-0123456789', 'gem-secret-abcdef', 'aeo-secret-value-42']
    vi.stubEnv('ANTHROPIC_API_KEY', secrets[0])
    vi.stubEnv('GEMINI_API_KEY', secrets[1])
    vi.stubEnv('AGENTEVALOPS_SERVICE_TOKEN', secrets[2])
    vi.stubEnv('OPENAI_API_KEY', '') // empty counts as not set
    const { code, stdout, stderr } = await runCli('doctor', '--dir', root)
    expect(code).toBe(0)
    const output = `${stdout}\n${stderr}`
    for (const secret of secrets) expect(output).not.toContain(secret)
    expect(stdout).toContain('  API keys set:      ANTHROPIC_API_KEY, GEMINI_API_KEY\n')
    expect(stdout).toContain(
      '  API keys not set:  OPENAI_API_KEY, GOOGLE_API_KEY, AZURE_OPENAI_API_KEY, MISTRAL_API_KEY\n',
    )
    expect(stdout).toContain('  AGENTEVALOPS_*:    AGENTEVALOPS_SERVICE_TOKEN\n')
    expect(stdout).toContain(
      '  Providers:         anthropic (ANTHROPIC_API_KEY: runner anthropic, llm-judge)\n',
    )
  })

  it('names the providers it finds keys for, with the endpoint variable when one is set', async () => {
    const root = await makeProject()
    for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'LLM_API_KEY', 'LLM_API_BASE'])
      vi.stubEnv(name, '')
    vi.stubEnv('OPENAI_API_KEY', 'sk-openai-secret-1')
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:9/v1')
    const { code, stdout } = await runCli('doctor', '--dir', root)
    expect(code).toBe(0)
    expect(stdout).toContain(
      '  Providers:         openai (OPENAI_API_KEY, OPENAI_BASE_URL: llm-judge provider openai)\n',
    )
    expect(stdout).not.toContain('sk-openai-secret-1')
    vi.stubEnv('OPENAI_API_KEY', '')
    expect((await runCli('doctor', '--dir', root)).stdout).toContain(
      '  Providers:         none (no provider key is set)\n',
    )
  })

  it('fails the runs check with a one-line fix when the folder cannot be written, exit 1', async () => {
    const root = await makeProject()
    await writeFile(join(root, 'blocker'), 'a file where a folder should be')
    const { code, lines, stderr } = await runCli('doctor', '--dir', root, '--output', 'blocker/runs')
    expect(code).toBe(1)
    const at = lines.findIndex((l) => l.startsWith('  FAIL  runs'))
    expect(lines[at]).toContain(`${join(root, 'blocker', 'runs')} is not writable (from --output): ENOTDIR`)
    expect(lines[at + 1]).toMatch(
      /^ +fix: make the folder writable, or choose another with AGENTEVALOPS_RUNS_DIR/,
    )
    expect(stderr).toBe('1 of 4 checks failed: runs (see the fix under each)')
  })

  it('checks the runs folder named by AGENTEVALOPS_RUNS_DIR, or --output, and removes what it created', async () => {
    const root = await makeProject()
    vi.stubEnv('AGENTEVALOPS_RUNS_DIR', 'out/from-env')
    const fromEnv = await runCli('doctor', '--dir', root)
    expect(fromEnv.code).toBe(0)
    expect(fromEnv.lines).toContain(
      `  ok    runs     ${join(root, 'out', 'from-env')} is writable (from AGENTEVALOPS_RUNS_DIR)`,
    )
    expect(existsSync(join(root, 'out'))).toBe(false)

    await mkdir(join(root, 'existing'))
    await writeFile(join(root, 'existing', 'keep.txt'), 'x')
    const fromFlag = await runCli('doctor', '--dir', root, '-o', 'existing')
    expect(fromFlag.code).toBe(0)
    expect(await readdir(join(root, 'existing'))).toEqual(['keep.txt'])
  })

  it('lists adapters of installed plugin packages with their source; a broken package fails the check', async () => {
    const root = await makeProject(
      {
        'aeo-plugin-good': pluginPackage('aeo-plugin-good', GOOD_ADAPTERS),
        'aeo-plugin-broken': pluginPackage('aeo-plugin-broken', null),
      },
      ['aeo-plugin-good', 'aeo-plugin-broken', 'not-installed-dep'],
    )
    const { code, lines, stdout } = await runCli('doctor', '--dir', root)
    expect(code).toBe(1)
    expect(lines).toContain('             good-echo         package aeo-plugin-good@1.2.3')
    expect(lines).toContain('             mock-scripted     built-in')
    expect(stdout).toMatch(/\n {2}aeo-plugin-good@1\.2\.3 \(.*\): runner good-echo\n/)
    expect(lines).toContain(
      '  FAIL  plugins  1 adapter package loaded, 1 failed (see the plugin warnings below)',
    )
    expect(stdout).toMatch(/\nPlugin warnings:\n {2}- .*aeo-plugin-broken/)
    expect(lines).toContain('Listed in package.json but not installed (run npm install): not-installed-dep')
  })

  it('fails the vitest check when the project cannot resolve vitest', async () => {
    await writeFile(join(project.path, 'package.json'), '{"name":"bare","type":"module"}')
    const { code, lines } = await runCli('doctor', '--dir', project.path)
    expect(code).toBe(1)
    const at = lines.findIndex((l) => l.startsWith('  FAIL  vitest'))
    expect(lines[at]).toContain(`not resolvable from ${project.path}`)
    expect(lines[at + 1]).toMatch(/fix: install it in the project: npm install --save-dev vitest@\^4\.1\.0$/)
  })

  it('compares the Node version with the engines range', () => {
    expect(checkNode('>=20.19', 'v20.19.0').ok).toBe(true)
    expect(checkNode('>=20.19', 'v22.1.0').ok).toBe(true)
    const old = checkNode('>=20.19', 'v20.18.3')
    expect(old).toMatchObject({ ok: false, detail: 'v20.18.3 does not satisfy engines >=20.19' })
    expect(old.fix).toMatch(/^install Node 20\.19\.0 or newer/)
  })

  it('exits 2 on usage errors', async () => {
    expect((await runCli('doctor', 'extra')).code).toBe(2)
    expect((await runCli('doctor', '--dir', join(project.path, 'missing'))).code).toBe(2)
    expect((await runCli('doctor', '--verbose')).code).toBe(2)
  })
})
