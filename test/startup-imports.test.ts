/**
 * What a Vitest worker that only runs trials loads: the modules an eval file's imports reach statically. Loading
 * statistics, bundles, reports, config loading, spans or the CLI there costs every worker its startup for nothing;
 * those load lazily (`await import(…)`) where a run needs them, or on the main process only.
 */
import { existsSync, readFileSync } from 'node:fs'
import { posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '')

/**
 * The specifiers a module loads when it is evaluated: static imports and re-exports, without `import type` /
 * `export type` (erased) and without `import()` (loaded when called). Under verbatimModuleSyntax an import whose
 * names are all `type` still loads its module, so it counts.
 */
function loadedBy(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(`${ROOT}/${file}`, 'utf8'), ts.ScriptTarget.Latest)
  const out: string[] = []
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly)
      out.push((statement.moduleSpecifier as ts.StringLiteral).text)
    else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly)
      out.push((statement.moduleSpecifier as ts.StringLiteral).text)
  }
  return out
}

/** Every module of ours (by path) and package (by name) an entry reaches, and one path to each of ours. */
function reach(entries: readonly string[]): { files: Map<string, string[]>; packages: Set<string> } {
  const files = new Map<string, string[]>(entries.map((e) => [e, [e]]))
  const packages = new Set<string>()
  const queue = [...entries]
  while (queue.length > 0) {
    const file = queue.shift()!
    for (const specifier of loadedBy(file)) {
      if (!specifier.startsWith('.')) {
        if (!specifier.startsWith('node:'))
          packages.add(
            specifier
              .split('/')
              .slice(0, specifier.startsWith('@') ? 2 : 1)
              .join('/'),
          )
        continue
      }
      const target = posix.normalize(posix.join(posix.dirname(file), specifier))
      const resolved = existsSync(`${ROOT}/${target}`) ? target : `${target}/index.ts`
      if (!files.has(resolved)) {
        files.set(resolved, [...files.get(file)!, resolved])
        queue.push(resolved)
      }
    }
  }
  return { files, packages }
}

/** Modules a worker that runs trials has no use for. */
const RUN_LEVEL = [
  'src/scorers/',
  'src/bundles/',
  'src/reports/',
  'src/config/',
  'src/observability/',
  'src/cli/',
  'src/monitor/',
  'src/cloud/',
  'reporters/',
]
const RUN_LEVEL_PACKAGES = ['@opentelemetry/api', '@opentelemetry/sdk-trace-base', 'yaml', 'smol-toml']

function runLevelReached(entries: readonly string[]): string[] {
  const { files } = reach(entries)
  return [...files]
    .filter(([file]) => RUN_LEVEL.some((prefix) => file.startsWith(prefix)))
    .map(([, path]) => path.join(' → '))
}

describe('startup imports of a worker that runs trials', () => {
  it('an eval file importing agentevalops/adapters and agentevalops/plugin loads no run-level module', () => {
    expect(runLevelReached(['src/adapters.ts', 'plugin/index.ts'])).toEqual([])
  })

  it('loads no OpenTelemetry SDK and no config parser there either', () => {
    const { packages } = reach(['src/adapters.ts', 'plugin/index.ts'])
    expect(RUN_LEVEL_PACKAGES.filter((p) => packages.has(p))).toEqual([])
  })

  it('no entry loads the AWS SDK up front: only a run or merge that uses s3:// imports it, when it does', () => {
    const { packages } = reach(['src/index.ts', 'src/cli/index.ts', 'reporters/index.ts', 'plugin/index.ts'])
    expect(packages.has('@aws-sdk/client-s3')).toBe(false)
  })

  it('the root entry still exports the run-level machinery, beside everything agentevalops/adapters does', () => {
    // The public API stays whole: the root is the adapters entry and the rest.
    expect(loadedBy('src/index.ts')).toContain('./adapters.ts')
    expect(runLevelReached(['src/index.ts']).length).toBeGreaterThan(0)
  })

  it('is the entry the package publishes, and the one the pipeline benchmark imports', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as {
      exports: Record<string, { import: string }>
    }
    expect(pkg.exports['./adapters']?.import).toBe('./dist/src/adapters.js')
    const bench = readFileSync(`${ROOT}/bench/fixtures/pipeline.bench-case.ts`, 'utf8')
    expect(bench).toContain("from 'agentevalops/adapters'")
    expect(bench).not.toMatch(/from 'agentevalops'$/m)
  })
})
