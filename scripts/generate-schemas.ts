/**
 * `npm run schemas`: regenerates schemas/*.json (the JSON Schemas of the bundle files) from the zod schemas in
 * src/core. Files the generator no longer produces are removed. Run from the package root (npm does that).
 *
 * `--check` writes nothing and exits 1 when schemas/ is stale (test/schemas.test.ts checks the same in CI).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { diffSchemaDir, renderSchemas } from './bundle-schemas.ts'

function main(argv: string[]): number {
  const check = argv.includes('--check')
  const root = process.cwd()
  const pkgPath = join(root, 'package.json')
  const pkg = existsSync(pkgPath) ? (JSON.parse(readFileSync(pkgPath, 'utf8')) as { name?: string }) : {}
  if (pkg.name !== 'agentevalops') {
    console.error(`generate-schemas: run me from the agentevalops package root (cwd is ${root})`)
    return 2
  }
  const dir = join(root, 'schemas')
  const expected = renderSchemas()
  const diff = diffSchemaDir(dir, expected)

  if (check) {
    for (const f of diff.changed) console.error(`schemas/${f}: differs from the zod schemas`)
    for (const f of diff.missing) console.error(`schemas/${f}: missing`)
    for (const f of diff.extra) console.error(`schemas/${f}: not produced by the generator`)
    if (diff.changed.length + diff.missing.length + diff.extra.length === 0) return 0
    console.error('schemas/ is stale: run npm run schemas')
    return 1
  }

  mkdirSync(dir, { recursive: true })
  for (const f of [...diff.missing, ...diff.changed]) writeFileSync(join(dir, f), expected[f]!)
  for (const f of diff.extra) rmSync(join(dir, f))
  const touched = diff.missing.length + diff.changed.length + diff.extra.length
  console.log(
    touched === 0
      ? `schemas/: ${Object.keys(expected).length} files, up to date`
      : `schemas/: wrote ${[...diff.missing, ...diff.changed].join(', ') || 'nothing'}` +
          (diff.extra.length ? `; removed ${diff.extra.join(', ')}` : ''),
  )
  return 0
}

process.exitCode = main(process.argv.slice(2))
