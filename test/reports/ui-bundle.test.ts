import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { expect, test } from 'vitest'
import { uiAsset } from '../../src/reports/ui-bundle/index.ts'

test('the report app builds from ui/ into one inline-safe, all-ASCII script and a style', () => {
  const { script, style } = uiAsset('report')
  expect(script.length).toBeGreaterThan(1000)
  expect(script).not.toMatch(/<\/script|<!--/i)
  expect(/^[\x00-\x7f]*$/.test(script)).toBe(true)
  expect(style).toContain('.facts')
  // Built once a process: the same text, so the CSP hash of every page of a run is the same.
  expect(uiAsset('report').script).toBe(script)
})

test('a copy of the code bundled elsewhere in the package (a package.json of its own) still finds its app', async () => {
  // What a test's build of the CLI is: bundled under node_modules/.cache with a package.json for "type" only.
  const { build } = await import('esbuild')
  const root = fileURLToPath(new URL('../..', import.meta.url))
  const dir = join(
    root,
    'node_modules',
    '.cache',
    'agentevalops-test',
    `ui-copy-${process.pid}-${Date.now()}`,
  )
  try {
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n')
    const entry = join(dir, 'ui-bundle.js')
    await build({
      entryPoints: [join(root, 'src', 'reports', 'ui-bundle', 'index.ts')],
      outfile: entry,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    })
    const copy = (await import(pathToFileURL(entry).href)) as { uiAsset: typeof uiAsset }
    expect(copy.uiAsset('report').script).toBe(uiAsset('report').script)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
