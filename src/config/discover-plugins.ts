import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as z from 'zod'
import { AgentEvalOpsError, docPath, errorMessage, sdkVersion } from '../core/index.ts'
import { ADAPTER_KINDS, type AdapterFactories, type AdapterKind } from './catalog.ts'
import type { Registry } from './registry.ts'

/** The package.json field that makes a dependency an adapter package. */
export const PLUGIN_FIELD = 'agentevalops'

/** Version of the contract between agentevalops and adapter packages (`api.apiVersion`). */
export const PLUGIN_API_VERSION = 1

/** `"agentevalops": { "adapters": "./dist/adapters.js" }`; other keys are left for later versions. */
export const PluginField = z.looseObject({
  adapters: z.string().min(1),
})
export type PluginField = z.infer<typeof PluginField>

/** What a plugin's `register(registry, api)` gets as `registry`: registrations are tagged with its package. */
export interface AdapterRegistrar {
  register<K extends AdapterKind>(
    kind: K,
    id: string,
    factory: AdapterFactories[K],
    options?: { override?: boolean },
  ): void
  has(kind: AdapterKind, id: string): boolean
  ids(kind: AdapterKind): string[]
}

/** The second argument of a plugin's `register`. */
export interface PluginApi {
  readonly apiVersion: typeof PLUGIN_API_VERSION
  /** The plugin's own package name and version, as its package.json says. */
  readonly packageName: string
  readonly packageVersion: string
  /** The agentevalops version doing the loading. */
  readonly sdkVersion: string
  readonly kinds: readonly AdapterKind[]
  /**
   * An error for bad options that reaches the user as a config error: plugins need not (and should not, since
   * their copy of agentevalops may differ from the one loading them) import agentevalops to throw one.
   */
  configError(message: string, hint?: string): Error
}

/** What the module named by `"adapters"` must export. */
export interface AdapterPluginModule {
  register(registry: AdapterRegistrar, api: PluginApi): void | Promise<void>
}

export interface DiscoveredPackage {
  name: string
  version: string
  /** The package folder (symlinks resolved). */
  dir: string
  adapters: { kind: AdapterKind; id: string }[]
}

export interface DiscoveryResult {
  /** Adapter packages whose adapters were registered, by name. */
  packages: DiscoveredPackage[]
  /** One line per adapter package that could not be loaded: names the package and what to fix. */
  warnings: string[]
  /** Dependencies listed in package.json but not installed (they may or may not be adapter packages). */
  notInstalled: string[]
}

export interface DiscoverOptions {
  /** How long one plugin's register() may take (default 10 s). */
  registerTimeoutMs?: number
}

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const

const PackageJson = z.looseObject({
  name: z.string().optional(),
  version: z.string().optional(),
  dependencies: z.record(z.string(), z.unknown()).optional(),
  devDependencies: z.record(z.string(), z.unknown()).optional(),
  optionalDependencies: z.record(z.string(), z.unknown()).optional(),
})

const NPM_NAME = /^(@[a-z0-9~][\w.~-]*\/)?[a-z0-9~][\w.~-]*$/i

/** A plugin that could not be loaded: becomes a warning, never a failed run. */
class PluginProblem extends Error {}

/**
 * Finds the adapter packages among the project's direct dependencies (dependencies, devDependencies,
 * optionalDependencies of projectRoot/package.json), imports each one's adapters module and lets it register its
 * adapters in `registry`, tagged with the package as their source.
 *
 * A broken adapter package (invalid field, missing module, import or register() throwing, a duplicate id) does not
 * fail the discovery: none of its adapters are registered, and a warning names the package and what to fix. A
 * config that names one of its ids then fails with "unknown runner …", whose hint repeats the reason.
 */
export async function discoverPlugins(
  projectRoot: string,
  registry: Registry,
  options: DiscoverOptions = {},
): Promise<DiscoveryResult> {
  const result: DiscoveryResult = { packages: [], warnings: [], notInstalled: [] }
  const root = resolve(projectRoot)
  const manifestPath = join(root, 'package.json')
  if (!existsSync(manifestPath)) return result

  let manifest: z.infer<typeof PackageJson>
  try {
    manifest = PackageJson.parse(JSON.parse(readFileSync(manifestPath, 'utf8')))
  } catch (e) {
    result.warnings.push(
      `${manifestPath} could not be read (${errorMessage(e)}): no adapter packages were loaded from its dependencies.`,
    )
    return result
  }

  const names = new Set<string>()
  for (const field of DEPENDENCY_FIELDS)
    for (const name of Object.keys(manifest[field] ?? {})) names.add(name)
  // The SDK itself is not an adapter package; a project may even be agentevalops itself.
  names.delete('agentevalops')
  if (manifest.name) names.delete(manifest.name)

  for (const name of [...names].sort()) {
    if (!NPM_NAME.test(name)) continue
    const pkgJsonPath = locatePackageJson(root, name)
    if (!pkgJsonPath) {
      result.notInstalled.push(name)
      registry.notePackage(name, { state: 'not-installed' })
      continue
    }
    let loaded: DiscoveredPackage | undefined
    try {
      loaded = await loadPlugin(name, pkgJsonPath, registry, options.registerTimeoutMs ?? 10_000)
    } catch (e) {
      const reason = errorMessage(e)
      result.warnings.push(`adapter package ${name}: ${reason}`)
      registry.notePackage(name, { state: 'failed', reason })
      continue
    }
    if (loaded) {
      result.packages.push(loaded)
      registry.notePackage(name, { state: 'loaded', version: loaded.version })
    }
  }
  return result
}

/**
 * The dependency's package.json as Node resolves it from the project, or — when the package's `exports` hide its
 * package.json — the first node_modules/<name>/package.json walking up from the project, as Node would search.
 */
function locatePackageJson(root: string, name: string): string | undefined {
  try {
    return createRequire(join(root, 'package.json')).resolve(`${name}/package.json`)
  } catch {
    // ERR_PACKAGE_PATH_NOT_EXPORTED, or not installed: look for the folder itself.
  }
  for (let dir = root; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name, 'package.json')
    if (existsSync(candidate)) return candidate
    if (dirname(dir) === dir) return undefined
  }
}

/** Undefined when the package is no adapter package (no field); throws PluginProblem-worthy errors otherwise. */
async function loadPlugin(
  name: string,
  pkgJsonPath: string,
  registry: Registry,
  timeoutMs: number,
): Promise<DiscoveredPackage | undefined> {
  let pkg: z.infer<typeof PackageJson>
  try {
    pkg = PackageJson.parse(JSON.parse(readFileSync(pkgJsonPath, 'utf8')))
  } catch (e) {
    // Not readable: we cannot tell whether it is an adapter package; say so only if it might be.
    const text = safeRead(pkgJsonPath)
    if (text?.includes(`"${PLUGIN_FIELD}"`))
      throw new PluginProblem(`its package.json could not be read: ${errorMessage(e)}`)
    return undefined
  }
  const raw = (pkg as Record<string, unknown>)[PLUGIN_FIELD]
  if (raw === undefined) return undefined

  const version = pkg.version ?? '0.0.0'
  const label = `${name}@${version}`
  const field = PluginField.safeParse(raw)
  if (!field.success) {
    const issue = field.error.issues[0]
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''
    throw new PluginProblem(
      `the "${PLUGIN_FIELD}" field of its package.json is invalid (${where}${issue?.message ?? 'invalid'}); it must be { "adapters": "./path/to/adapters.js" } — see ${docPath('adapter-plugins.md')}. None of its adapters were loaded.`,
    )
  }

  const dir = realpathSync(dirname(pkgJsonPath))
  const spec = field.data.adapters
  const modulePath = resolve(dir, spec)
  const inside = relative(dir, modulePath)
  if (isAbsolute(spec) || inside.startsWith('..') || isAbsolute(inside)) {
    throw new PluginProblem(
      `"${PLUGIN_FIELD}.adapters" is ${JSON.stringify(spec)}, which is outside the package: give a path relative to its package.json, like "./dist/adapters.js".`,
    )
  }
  if (!isFile(modulePath)) {
    throw new PluginProblem(
      `its adapters module ${JSON.stringify(spec)} does not exist (${modulePath}): is the package built, and does "${PLUGIN_FIELD}.adapters" name the built file?`,
    )
  }

  let mod: Record<string, unknown>
  try {
    mod = (await import(/* @vite-ignore */ pathToFileURL(modulePath).href)) as Record<string, unknown>
  } catch (e) {
    throw new PluginProblem(`importing its adapters module ${spec} failed: ${errorMessage(e)}`)
  }
  const fallback = mod.default as { register?: unknown } | undefined
  const register = typeof mod.register === 'function' ? mod.register : fallback?.register
  if (typeof register !== 'function') {
    throw new PluginProblem(
      `its adapters module ${spec} exports no register(registry, api) function (exports: ${Object.keys(mod).join(', ') || 'none'}); add \`export function register(registry, api) { … }\`.`,
    )
  }

  const staged = new StagedRegistrations(registry, { type: 'package', name, version })
  const api: PluginApi = Object.freeze({
    apiVersion: PLUGIN_API_VERSION,
    packageName: name,
    packageVersion: version,
    sdkVersion: sdkVersion(),
    kinds: ADAPTER_KINDS,
    configError: (message: string, hint?: string) =>
      new AgentEvalOpsError('CONFIG_INVALID', message, hint === undefined ? {} : { hint }),
  })
  try {
    await withTimeout(
      Promise.resolve().then(() => (register as AdapterPluginModule['register'])(staged.registrar, api)),
      timeoutMs,
      `register() did not finish within ${timeoutMs} ms`,
    )
  } catch (e) {
    throw new PluginProblem(
      `register() of ${spec} (${label}) failed, so none of its adapters were registered: ${errorMessage(e)}`,
    )
  } finally {
    staged.close()
  }
  if (staged.count === 0) {
    throw new PluginProblem(`register() of ${spec} registered no adapters (${label}).`)
  }
  const adapters = staged.commit()
  return { name, version, dir, adapters }
}

/**
 * A plugin's registrations are staged, checked as they come, and committed only once its register() has finished:
 * a plugin that fails halfway leaves nothing behind.
 */
class StagedRegistrations {
  private readonly items: {
    kind: AdapterKind
    id: string
    factory: AdapterFactories[AdapterKind]
    override: boolean
  }[] = []
  private closed = false
  readonly registrar: AdapterRegistrar

  constructor(
    private readonly registry: Registry,
    private readonly source: { type: 'package'; name: string; version: string },
  ) {
    const stagedHas = (kind: AdapterKind, id: string) =>
      this.items.some((i) => i.kind === kind && i.id === id)
    this.registrar = Object.freeze({
      register: <K extends AdapterKind>(
        kind: K,
        id: string,
        factory: AdapterFactories[K],
        options: { override?: boolean } = {},
      ) => {
        if (this.closed) {
          throw new AgentEvalOpsError(
            'CONFIG_INVALID',
            `package ${source.name} registered ${kind} "${id}" after its register() returned`,
            { hint: 'Register every adapter before register() returns (or before its promise resolves).' },
          )
        }
        const override = options.override === true
        this.registry.checkRegistration(kind, id, factory, { source, override })
        if (stagedHas(kind, id)) {
          throw new AgentEvalOpsError(
            'CONFIG_INVALID',
            `package ${source.name} registers ${kind} "${id}" twice`,
          )
        }
        this.items.push({ kind, id, factory, override })
      },
      has: (kind: AdapterKind, id: string) => this.registry.has(kind, id) || stagedHas(kind, id),
      ids: (kind: AdapterKind) =>
        [
          ...new Set([
            ...this.registry.ids(kind),
            ...this.items.filter((i) => i.kind === kind).map((i) => i.id),
          ]),
        ].sort(),
    })
  }

  get count(): number {
    return this.items.length
  }

  close(): void {
    this.closed = true
  }

  commit(): { kind: AdapterKind; id: string }[] {
    for (const { kind, id, factory, override } of this.items) {
      this.registry.register(kind, id, factory, { source: this.source, override })
    }
    return this.items.map(({ kind, id }) => ({ kind, id }))
  }
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false
}

function safeRead(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms)
    timer.unref()
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
