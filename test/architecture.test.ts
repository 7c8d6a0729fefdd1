/**
 * The layout rules of DESIGN §2, checked on the import specifiers of every .ts file under src/, plugin/ and
 * reporters/ (static imports, `import type`, re-exports, dynamic `import()` and `require`, as listed by
 * TypeScript's own pre-processor).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/** Adapter families: each may import src/core and src/engine, never another family. */
const FAMILIES = [
  'agents',
  'benchmarks',
  'evaluators',
  'scorers',
  'stores',
  'policy',
  'reports',
  'recording',
  'observability',
  'monitor',
  'cloud',
  'bundles',
  'config',
] as const

type Rule = 'core-leaf' | 'families' | 'engine' | 'models' | 'edges' | 'core-index' | 'library-only'

const RULES: Record<Rule, string> = {
  'core-leaf': 'src/core imports nothing of ours outside src/core',
  families: 'an adapter family imports only src/core, src/engine, src/models and itself',
  engine: 'src/engine imports only src/core and src/stores',
  models: 'src/models (model calls shared by runners and judges) imports only src/core',
  edges:
    'plugin/, reporters/ and src/cli are imported by nothing else (except cli → plugin/reporters, plugin → reporters)',
  'core-index': 'outside src/core, import src/core through its index, not a submodule',
  'library-only': 'library code does not import test/, evals/, bench/, scripts/ or examples/',
}

interface Violation {
  file: string
  specifier: string
  /** Where the specifier lands, relative to the package root. */
  target: string
  rule: Rule
}

interface CheckOptions {
  /** Bare specifiers that are this package itself (`agentevalops/plugin` → `plugin/index.ts`). */
  selfImports?: Record<string, string>
  /** Whether a file outside `files` exists (a .json, a file not scanned); defaults to "no". Folders are not files. */
  exists?: (path: string) => boolean
}

/** A file's imports, as TypeScript's pre-processor lists them. */
function importsOf(text: string): string[] {
  const info = ts.preProcessFile(text, true, true)
  return [...info.importedFiles, ...info.referencedFiles].map((f) => f.fileName)
}

/** Resolves a relative specifier the way the bundler resolution does: extensionless, `.js` → `.ts`, folder index. */
function resolveSpecifier(from: string, specifier: string, has: (path: string) => boolean): string {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier))
  const stem = base.replace(/\.(m?js|jsx)$/, '')
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    `${stem}/index.ts`,
    `${stem}/index.tsx`,
    `${base}/index.ts`,
  ]
  return candidates.find(has) ?? base
}

type Area = string

/** `src/core`, `src/agents`, … for files in a src folder; `src` for files directly in src/; else the top folder. */
function areaOf(path: string): Area {
  const parts = path.split('/')
  if (parts[0] === '..') return '..'
  // `src/index.ts` (a file directly in src/) is the package root; `src/cli` (a folder, even unresolved) is cli.
  if (parts[0] === 'src')
    return parts.length === 2 && parts[1]!.includes('.') ? 'src' : `src/${parts[1] ?? ''}`
  return parts.length === 1 ? '.' : parts[0]!
}

const EDGES = new Set(['plugin', 'reporters', 'src/cli'])
const ALLOWED_EDGE_IMPORTS = new Set(['src/cli → plugin', 'src/cli → reporters', 'plugin → reporters'])
const NON_LIBRARY = new Set(['test', 'evals', 'bench', 'scripts', 'examples'])

// src/view (`agentevalops view`: the runs folder's index, its history, the server) composes bundles, reports and
// scorers, as the CLI does, without being an edge: the CLI starts it.
const NON_FAMILY_SRC = ['src/core', 'src/engine', 'src/models', 'src/cli', 'src/view']

function isFamily(area: Area): boolean {
  // A src folder that is neither core, engine nor cli is held to the family rule even before FAMILIES lists it.
  return area.startsWith('src/') && !NON_FAMILY_SRC.includes(area)
}

/** Which rule an import from `from` that lands on `target` breaks, if any. */
function ruleBroken(from: string, target: string): Rule | undefined {
  const a = areaOf(from)
  const b = areaOf(target)
  if (a === b) return undefined
  if (a === 'src/core') return 'core-leaf'
  if (EDGES.has(b) && !ALLOWED_EDGE_IMPORTS.has(`${a} → ${b}`)) return 'edges'
  if (a === 'src/engine' && b !== 'src/core' && b !== 'src/stores') return 'engine'
  if (a === 'src/models' && b !== 'src/core') return 'models'
  if (isFamily(a) && b !== 'src/core' && b !== 'src/engine' && b !== 'src/models') return 'families'
  if (NON_LIBRARY.has(b)) return 'library-only'
  if (b === 'src/core' && target !== 'src/core/index.ts') return 'core-index'
  return undefined
}

/** Every broken rule in a set of files (path relative to the package root → source text). */
function checkArchitecture(files: ReadonlyMap<string, string>, options: CheckOptions = {}): Violation[] {
  const has = (p: string) => files.has(p) || (options.exists?.(p) ?? false)
  const violations: Violation[] = []
  for (const [file, text] of [...files].sort(([x], [y]) => (x < y ? -1 : 1))) {
    for (const specifier of importsOf(text)) {
      let target: string | undefined
      if (specifier.startsWith('.')) target = resolveSpecifier(file, specifier, has)
      else target = options.selfImports?.[specifier]
      if (target === undefined) continue // a node builtin or an npm package
      const rule = ruleBroken(file, target)
      if (rule) violations.push({ file, specifier, target, rule })
    }
  }
  return violations
}

function formatViolation(v: Violation): string {
  return `${v.file} → ${v.specifier} (${v.rule}: ${RULES[v.rule]})`
}

// ---------------------------------------------------------------------------------------------------------------

const root = fileURLToPath(new URL('..', import.meta.url))
const SCANNED = ['src', 'plugin', 'reporters']

function listTs(dir: string): string[] {
  if (!existsSync(posix.join(root, dir))) return []
  return readdirSync(posix.join(root, dir), { withFileTypes: true }).flatMap((d) => {
    const rel = `${dir}/${d.name}`
    if (d.isDirectory()) return listTs(rel)
    return /\.(m|c)?tsx?$/.test(d.name) ? [rel] : []
  })
}

/** `agentevalops`, `agentevalops/plugin`, … → the source file behind each entry of package.json `exports`. */
function selfImports(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(posix.join(root, 'package.json'), 'utf8')) as {
    name: string
    exports?: Record<string, { import?: string }>
  }
  const map: Record<string, string> = {}
  for (const [subpath, entry] of Object.entries(pkg.exports ?? {})) {
    const built = entry.import?.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')
    if (built) map[posix.join(pkg.name, subpath)] = built
  }
  return map
}

function repoFiles(): Map<string, string> {
  const paths = SCANNED.flatMap(listTs).sort()
  return new Map(paths.map((p) => [p, readFileSync(posix.join(root, p), 'utf8')]))
}

describe('architecture (DESIGN §2)', () => {
  it('every import under src/, plugin/ and reporters/ keeps the layout rules', () => {
    const files = repoFiles()
    expect(files.size).toBeGreaterThan(0)
    const violations = checkArchitecture(files, {
      selfImports: selfImports(),
      exists: (p) => statSync(posix.join(root, p), { throwIfNoEntry: false })?.isFile() ?? false,
    }).map(formatViolation)
    expect(violations, `${violations.length} import(s) break DESIGN §2:\n${violations.join('\n')}\n`).toEqual(
      [],
    )
  })

  it('every folder under src/ is one DESIGN §2 names (core, engine, cli or an adapter family)', () => {
    const known = new Set([...NON_FAMILY_SRC, ...FAMILIES.map((f) => `src/${f}`)])
    const folders = readdirSync(posix.join(root, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `src/${d.name}`)
    const unknown = folders.filter((f) => !known.has(f))
    expect(unknown, 'a new src/ folder: add it to DESIGN §2 and to FAMILIES in this test').toEqual([])
  })

  it('maps the package self-imports onto source files', () => {
    expect(selfImports()).toMatchObject({
      agentevalops: 'src/index.ts',
      'agentevalops/plugin': 'plugin/index.ts',
      'agentevalops/reporters': 'reporters/index.ts',
    })
  })
})

describe('the architecture checker itself', () => {
  const check = (files: Record<string, string>) =>
    checkArchitecture(new Map(Object.entries(files)), {
      selfImports: { 'agentevalops/plugin': 'plugin/index.ts' },
    })
  const rulesOf = (files: Record<string, string>) =>
    check(files).map((v) => `${v.file} → ${v.target} (${v.rule})`)

  const base = {
    'src/core/index.ts': "export * from './schemas'\nexport type * from './protocols'",
    'src/core/schemas.ts': "import { z } from 'zod'\nimport { readFileSync } from 'node:fs'",
    'src/core/protocols.ts': "import type { X } from './schemas'",
    'src/engine/index.ts': "export * from './run'",
    'src/engine/run.ts': "import { a } from '../core'\nimport type { TraceStore } from '../stores/index.js'",
    'src/stores/index.ts': "import { b } from '../core/index'\nimport { c } from '../engine'",
    'src/agents/index.ts': "export * from './mock/runner'",
    'src/agents/mock/runner.ts': "import { d } from '../../core'\nimport { runTrial } from '../../engine'",
    'src/cli/index.ts':
      "import { e } from '../../plugin'\nimport { f } from '../../reporters'\nimport '../agents'",
    'src/index.ts': "export * from './core'\nexport * from './agents'",
    'plugin/index.ts':
      "import { g } from '../reporters/index.ts'\nimport { h } from '../src/engine/index.ts'\nimport '../src/index.ts'",
    'reporters/index.ts':
      "import { i } from '../src/bundles/writer.ts'\nimport { j } from '../src/core/index.ts'",
    'src/bundles/writer.ts': "import { k } from '../core'",
  }

  it('passes a layout that keeps every rule, including the allowed edge imports', () => {
    expect(rulesOf(base)).toEqual([])
  })

  it('flags src/core importing anything of ours outside src/core (rule a)', () => {
    expect(rulesOf({ ...base, 'src/core/ids.ts': "import { x } from '../engine/limits'" })).toEqual([
      'src/core/ids.ts → src/engine/limits (core-leaf)',
    ])
    expect(rulesOf({ ...base, 'src/core/ids.ts': "import type { P } from 'agentevalops/plugin'" })).toEqual([
      'src/core/ids.ts → plugin/index.ts (core-leaf)',
    ])
  })

  it('lets families use src/models, and keeps src/models on src/core alone', () => {
    const models = {
      ...base,
      'src/models/index.ts': "import { a } from '../core/index.ts'",
      'src/evaluators/judge.ts': "import { call } from '../models/index.ts'",
    }
    expect(rulesOf(models)).toEqual([])
    expect(rulesOf({ ...models, 'src/models/pricing.ts': "import { x } from '../agents/index.ts'" })).toEqual(
      ['src/models/pricing.ts → src/agents/index.ts (models)'],
    )
  })

  it('flags one adapter family importing another, by any import form (rule b)', () => {
    const forms = [
      "import { x } from '../../benchmarks/toy'",
      "import type { X } from '../../benchmarks'",
      "export { x } from '../../benchmarks/toy/index.js'",
      "const m = await import('../../benchmarks')",
    ]
    for (const form of forms) {
      const found = check({ ...base, 'src/agents/mock/extra.ts': form })
      expect(
        found.map((v) => [v.file, v.rule]),
        form,
      ).toEqual([['src/agents/mock/extra.ts', 'families']])
    }
    // … and a family importing the package root, which re-exports every family.
    expect(rulesOf({ ...base, 'src/policy/index.ts': "import { x } from '..'" })).toEqual([
      'src/policy/index.ts → src/index.ts (families)',
    ])
  })

  it('flags src/engine importing anything but src/core and src/stores (rule b, engine)', () => {
    expect(rulesOf({ ...base, 'src/engine/run.ts': "import { m } from '../agents'" })).toEqual([
      'src/engine/run.ts → src/agents/index.ts (engine)',
    ])
  })

  it('flags an import of an edge from anywhere but the allowed edges (rule c)', () => {
    expect(
      rulesOf({
        ...base,
        'src/agents/x.ts': "import { p } from '../../plugin'",
        'src/index.ts': "export * from '../reporters/index.ts'",
        'reporters/x.ts': "import { q } from '../plugin/index.ts'",
        'plugin/x.ts': "import { r } from '../src/cli/index.ts'",
        'src/engine/x.ts': "import { s } from '../cli/run'",
      }),
    ).toEqual([
      'plugin/x.ts → src/cli/index.ts (edges)',
      'reporters/x.ts → plugin/index.ts (edges)',
      'src/agents/x.ts → plugin/index.ts (edges)',
      'src/engine/x.ts → src/cli/run (edges)',
      'src/index.ts → reporters/index.ts (edges)',
    ])
  })

  it('flags a core submodule imported from outside src/core (core through its index)', () => {
    expect(
      rulesOf({ ...base, 'src/bundles/writer.ts': "import { RunMetadata } from '../core/schemas'" }),
    ).toEqual(['src/bundles/writer.ts → src/core/schemas.ts (core-index)'])
  })

  it('flags library code importing test or build-side code', () => {
    expect(rulesOf({ ...base, 'plugin/x.ts': "import { t } from '../test/helpers'" })).toEqual([
      'plugin/x.ts → test/helpers (library-only)',
    ])
  })

  it('resolves extensionless, .js and folder specifiers; ignores npm packages and node builtins', () => {
    const has = (p: string) => ['src/core/index.ts', 'src/core/ids.ts'].includes(p)
    expect(resolveSpecifier('src/agents/a.ts', '../core', has)).toBe('src/core/index.ts')
    expect(resolveSpecifier('src/agents/a.ts', '../core/ids.js', has)).toBe('src/core/ids.ts')
    expect(resolveSpecifier('src/agents/a.ts', '../core/ids', has)).toBe('src/core/ids.ts')
    expect(resolveSpecifier('src/agents/a.ts', '../missing', has)).toBe('src/missing')
    expect(
      rulesOf({ 'src/core/a.ts': "import 'node:fs'\nimport { z } from 'zod'\nimport 'zod/v4/core'" }),
    ).toEqual([])
  })

  it('formats a violation as file → import (rule)', () => {
    const [v] = check({ ...base, 'src/engine/run.ts': "import { m } from '../agents'" })
    expect(formatViolation(v!)).toBe(
      'src/engine/run.ts → ../agents (engine: src/engine imports only src/core and src/stores)',
    )
  })
})
