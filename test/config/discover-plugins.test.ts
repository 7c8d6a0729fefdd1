import { BUILTIN_IDS } from './fake-catalog.ts'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { builtinRegistry } from '../../plugin/builtin-adapters.ts'
import { discoverPlugins, PLUGIN_API_VERSION } from '../../src/config/discover-plugins.ts'
import { Registry } from '../../src/config/registry.ts'
import { AgentEvalOpsError, sdkVersion } from '../../src/core/index.ts'

// Each test builds a throwaway project with hand-written node_modules: fast, and every broken shape on demand.
// (test/config/discover-example-plugin.test.ts installs the real example package with npm.)

const roots: string[] = []

afterEach(async () => {
  await Promise.all(roots.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

interface FakePackage {
  /** package.json contents (name and version default from the key and 1.0.0). */
  json?: Record<string, unknown>
  /** Raw package.json text, when it must be broken. */
  rawJson?: string
  /** Files of the package, by relative path. */
  files?: Record<string, string>
}

/** A project at <tmp>/project depending on `deps`; `installed` go into its node_modules (or `nodeModulesDir`). */
async function project(opts: {
  deps?: Record<string, string>
  devDeps?: Record<string, string>
  optionalDeps?: Record<string, string>
  installed?: Record<string, FakePackage>
  rootJson?: string
  /** Install the packages this many folders above the project (a hoisted monorepo layout). */
  hoist?: boolean
}): Promise<string> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'aeo-discover-')))
  roots.push(base)
  const root = join(base, 'workspace', 'project')
  await mkdir(root, { recursive: true })
  await writeFile(
    join(root, 'package.json'),
    opts.rootJson ??
      JSON.stringify({
        name: 'my-evals',
        version: '1.0.0',
        dependencies: opts.deps ?? {},
        devDependencies: opts.devDeps ?? {},
        optionalDependencies: opts.optionalDeps ?? {},
      }),
  )
  const modules = join(opts.hoist ? join(base, 'workspace') : root, 'node_modules')
  for (const [name, pkg] of Object.entries(opts.installed ?? {})) {
    const dir = join(modules, name)
    await mkdir(dir, { recursive: true })
    await writeFile(
      join(dir, 'package.json'),
      pkg.rawJson ?? JSON.stringify({ name, version: '1.0.0', type: 'module', ...pkg.json }),
    )
    for (const [file, text] of Object.entries(pkg.files ?? {})) {
      await mkdir(dirname(join(dir, file)), { recursive: true })
      await writeFile(join(dir, file), text)
    }
  }
  return root
}

const FIELD = { agentevalops: { adapters: './adapters.js' } }

/** An adapters module registering the given (kind, id) pairs with trivial factories. */
function adaptersModule(...registrations: [string, string][]): string {
  const lines = registrations.map(
    ([kind, id]) => `  registry.register(${JSON.stringify(kind)}, ${JSON.stringify(id)}, () => ({}))`,
  )
  return `export function register(registry, api) {\n${lines.join('\n')}\n}\n`
}

function plugin(...registrations: [string, string][]): FakePackage {
  return { json: FIELD, files: { 'adapters.js': adaptersModule(...registrations) } }
}

describe('discoverPlugins', () => {
  it('finds nothing, quietly, without a package.json or without adapter packages', async () => {
    const base = await mkdtemp(join(tmpdir(), 'aeo-discover-'))
    roots.push(base)
    expect(await discoverPlugins(base, builtinRegistry())).toEqual({
      packages: [],
      warnings: [],
      notInstalled: [],
    })

    const root = await project({
      deps: { 'left-pad': '1', agentevalops: '0.1.0' },
      installed: { 'left-pad': { files: { 'index.js': '' } } },
    })
    expect(await discoverPlugins(root, builtinRegistry())).toEqual({
      packages: [],
      warnings: [],
      notInstalled: [],
    })
  })

  it('registers the adapters of every adapter package among dependencies, devDependencies and optionalDependencies', async () => {
    const root = await project({
      deps: { 'acme-runners': '^1' },
      devDeps: { '@acme/graders': '^2' },
      optionalDeps: { 'acme-policy': '*' },
      installed: {
        'acme-runners': plugin(['runner', 'acme:bot'], ['benchmark', 'acme:bench']),
        '@acme/graders': {
          ...plugin(['evaluator', '@acme/graders:judge']),
          json: { ...FIELD, version: '2.1.0' },
        },
        'acme-policy': plugin(['policy', 'acme:no-rm'], ['scorer', 'acme:stats']),
      },
    })
    const registry = builtinRegistry()
    const result = await discoverPlugins(root, registry)
    expect(result.warnings).toEqual([])
    expect(result.packages.map((p) => [p.name, p.version, p.adapters])).toEqual([
      ['@acme/graders', '2.1.0', [{ kind: 'evaluator', id: '@acme/graders:judge' }]],
      [
        'acme-policy',
        '1.0.0',
        [
          { kind: 'policy', id: 'acme:no-rm' },
          { kind: 'scorer', id: 'acme:stats' },
        ],
      ],
      [
        'acme-runners',
        '1.0.0',
        [
          { kind: 'runner', id: 'acme:bot' },
          { kind: 'benchmark', id: 'acme:bench' },
        ],
      ],
    ])
    expect(result.packages[2]?.dir).toBe(join(root, 'node_modules', 'acme-runners'))
    expect(registry.ids('runner')).toEqual(['acme:bot', ...BUILTIN_IDS.runner])
    expect(registry.sourceOf('evaluator', '@acme/graders:judge')).toEqual({
      type: 'package',
      name: '@acme/graders',
      version: '2.1.0',
    })
    expect(registry.entries().filter((e) => e.source.type === 'package')).toHaveLength(5)
  })

  it('hands register() a registrar tagged with the package and an api describing it', async () => {
    const root = await project({
      deps: { spy: '1' },
      installed: {
        spy: {
          json: { ...FIELD, version: '3.4.5' },
          files: {
            'adapters.js': `
              export async function register(registry, api) {
                await new Promise((r) => setTimeout(r, 5))
                const seen = { ...api, configError: typeof api.configError, before: registry.has('runner', 'spy:r') }
                registry.register('runner', 'spy:r', () => ({ runnerInfo() {}, run() {} }))
                seen.after = registry.has('runner', 'spy:r')
                seen.ids = registry.ids('runner')
                seen.error = api.configError('bad option', 'fix it')
                globalThis.__aeoSpy = seen
              }`,
          },
        },
      },
    })
    const registry = builtinRegistry()
    await discoverPlugins(root, registry)
    const seen = (globalThis as { __aeoSpy?: Record<string, unknown> }).__aeoSpy
    delete (globalThis as { __aeoSpy?: unknown }).__aeoSpy
    expect(seen).toMatchObject({
      apiVersion: PLUGIN_API_VERSION,
      packageName: 'spy',
      packageVersion: '3.4.5',
      sdkVersion: sdkVersion(),
      kinds: ['runner', 'benchmark', 'evaluator', 'policy', 'scorer', 'reporter'],
      configError: 'function',
      before: false,
      after: true,
      ids: [...BUILTIN_IDS.runner, 'spy:r'].sort(),
    })
    expect(seen?.error).toBeInstanceOf(AgentEvalOpsError)
    expect(seen?.error).toMatchObject({ code: 'CONFIG_INVALID', message: 'bad option fix it' })
    expect(registry.sourceOf('runner', 'spy:r')).toEqual({ type: 'package', name: 'spy', version: '3.4.5' })
  })

  it('finds a package whose exports hide its package.json, a hoisted one, and a default-exported register', async () => {
    const root = await project({
      deps: { sealed: '1', hoisted: '1', 'cjs-style': '1' },
      hoist: true,
      installed: {
        sealed: { ...plugin(['runner', 'sealed:r']), json: { ...FIELD, exports: { '.': './adapters.js' } } },
        hoisted: plugin(['runner', 'hoisted:r']),
        'cjs-style': {
          json: FIELD,
          files: {
            'adapters.js': `export default { register(registry) { registry.register('scorer', 'cjs:s', () => ({})) } }`,
          },
        },
      },
    })
    const registry = new Registry()
    const result = await discoverPlugins(root, registry)
    expect(result.warnings).toEqual([])
    expect(result.packages.map((p) => p.name)).toEqual(['cjs-style', 'hoisted', 'sealed'])
    expect(registry.ids('runner')).toEqual(['hoisted:r', 'sealed:r'])
    expect(registry.ids('scorer')).toEqual(['cjs:s'])
  })

  it('lists dependencies that are not installed, and says so when a config names one of their ids', async () => {
    const root = await project({ deps: { 'acme-tools': '1' }, devDeps: { 'other-thing': '1' } })
    const registry = builtinRegistry()
    const result = await discoverPlugins(root, registry)
    expect(result).toEqual({ packages: [], warnings: [], notInstalled: ['acme-tools', 'other-thing'] })
    expect(() => registry.create('runner', 'acme-tools:bot')).toThrow(
      `unknown runner "acme-tools:bot" (known: ${BUILTIN_IDS.runner.join(', ')}). Package acme-tools is in package.json but not installed: run npm install.`,
    )
  })

  describe('a broken adapter package is a warning naming it, and registers nothing', () => {
    const cases: [string, FakePackage, RegExp][] = [
      [
        'the field is not an object',
        { json: { agentevalops: './adapters.js' } },
        /^adapter package broken: the "agentevalops" field of its package.json is invalid \(.*\); it must be \{ "adapters": "\.\/path\/to\/adapters\.js" \}/,
      ],
      [
        'the field misspells "adapters"',
        { json: { agentevalops: { adaptors: './adapters.js' } } },
        /field of its package\.json is invalid \(adapters: .*expected string/,
      ],
      [
        'the adapters path leaves the package',
        { json: { agentevalops: { adapters: '../elsewhere.js' } } },
        /"agentevalops.adapters" is "\.\.\/elsewhere\.js", which is outside the package/,
      ],
      [
        'the adapters module is missing',
        { json: { agentevalops: { adapters: './dist/adapters.js' } } },
        /its adapters module "\.\/dist\/adapters\.js" does not exist .*is the package built/,
      ],
      [
        'importing the module throws',
        { json: FIELD, files: { 'adapters.js': `throw new Error('needs ACME_HOME')` } },
        /importing its adapters module \.\/adapters\.js failed: needs ACME_HOME/,
      ],
      [
        'the module has a syntax error',
        { json: FIELD, files: { 'adapters.js': `export function register( {` } },
        /importing its adapters module \.\/adapters\.js failed: /,
      ],
      [
        'the module exports no register()',
        { json: FIELD, files: { 'adapters.js': `export const adapters = []` } },
        /exports no register\(registry, api\) function \(exports: adapters\); add `export function register/,
      ],
      [
        'register() throws halfway',
        {
          json: FIELD,
          files: {
            'adapters.js': `export function register(registry) {
              registry.register('runner', 'broken:first', () => ({}))
              throw new Error('missing license key')
            }`,
          },
        },
        /register\(\) of \.\/adapters\.js \(broken@1\.0\.0\) failed, so none of its adapters were registered: missing license key$/,
      ],
      [
        'register() registers an unknown kind',
        plugin(['agent', 'broken:a']),
        /registered: package broken@1\.0\.0 registers an adapter of unknown kind "agent"\. The kinds are: runner/,
      ],
      [
        'register() registers nothing',
        { json: FIELD, files: { 'adapters.js': `export function register() {}` } },
        /register\(\) of \.\/adapters\.js registered no adapters \(broken@1\.0\.0\)/,
      ],
      [
        'register() reuses a built-in id',
        plugin(['runner', 'broken:ok'], ['evaluator', 'contains']),
        /evaluator "contains" is registered twice: by built-in and by package broken@1\.0\.0\. .*"broken:contains"/,
      ],
      [
        'register() registers one id twice',
        plugin(['runner', 'broken:r'], ['runner', 'broken:r']),
        /package broken registers runner "broken:r" twice/,
      ],
    ]

    it.each(cases)('%s', async (_name, broken, warning) => {
      const root = await project({
        deps: { broken: '1', good: '1' },
        installed: { broken, good: plugin(['runner', 'good:r']) },
      })
      const registry = builtinRegistry()
      const before = registry.entries()
      const result = await discoverPlugins(root, registry)
      expect(result.warnings).toHaveLength(1)
      expect(result.warnings[0]).toMatch(warning)
      // The other package still loads; the broken one left nothing behind.
      expect(result.packages.map((p) => p.name)).toEqual(['good'])
      const after = registry.entries()
      expect(after.filter((e) => e.source.type === 'package')).toEqual([
        { kind: 'runner', id: 'good:r', source: { type: 'package', name: 'good', version: '1.0.0' } },
      ])
      expect(after.filter((e) => e.source.type === 'builtin')).toEqual(before)
      // A config naming one of its ids learns why.
      expect(registry.hintFor('runner', 'broken:x')).toMatch(/^Package broken did not load: /)
    })
  })

  it('gives up on a register() that never finishes', async () => {
    const root = await project({
      deps: { slow: '1' },
      installed: {
        slow: {
          json: FIELD,
          files: { 'adapters.js': `export function register() { return new Promise(() => {}) }` },
        },
      },
    })
    const result = await discoverPlugins(root, new Registry(), { registerTimeoutMs: 50 })
    expect(result.warnings).toEqual([
      'adapter package slow: register() of ./adapters.js (slow@1.0.0) failed, so none of its adapters were registered: register() did not finish within 50 ms',
    ])
  })

  it('rejects registrations made after register() returned', async () => {
    const root = await project({
      deps: { late: '1' },
      installed: {
        late: {
          json: FIELD,
          files: {
            'adapters.js': `export function register(registry) {
              registry.register('runner', 'late:now', () => ({}))
              globalThis.__aeoLate = () => registry.register('runner', 'late:later', () => ({}))
            }`,
          },
        },
      },
    })
    const registry = new Registry()
    await discoverPlugins(root, registry)
    const late = (globalThis as { __aeoLate?: () => void }).__aeoLate
    delete (globalThis as { __aeoLate?: unknown }).__aeoLate
    expect(late).toThrow('package late registered runner "late:later" after its register() returned')
    expect(registry.ids('runner')).toEqual(['late:now'])
  })

  it('warns about an unreadable project package.json, and about a broken one of a likely adapter package', async () => {
    const bad = await project({ rootJson: '{ "dependencies": ' })
    const result = await discoverPlugins(bad, new Registry())
    expect(result.warnings).toHaveLength(1)
    expect(result.warnings[0]).toMatch(/package\.json could not be read .*no adapter packages were loaded/)

    const root = await project({
      deps: { mangled: '1', junk: '1' },
      installed: { mangled: { rawJson: '{ "agentevalops": { "adapters": ' }, junk: { rawJson: 'not json' } },
    })
    const second = await discoverPlugins(root, new Registry())
    expect(second.warnings).toHaveLength(1)
    expect(second.warnings[0]).toMatch(/^adapter package mangled: its package\.json could not be read/)
  })
})
