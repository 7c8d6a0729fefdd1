import { spawnSync } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildBundle, copyBundle, tempDir } from '../bundles/fixtures.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
// Inside the package, so the bundled CLI resolves zod & co from our node_modules and finds our package.json.
const outDir = join(root, 'node_modules', '.cache', 'agentevalops-test', `cli-${process.pid}-${Date.now()}`)
const cli = join(outDir, 'agentevalops.mjs')

let work: Awaited<ReturnType<typeof tempDir>>
let bundle: string

beforeAll(async () => {
  await mkdir(outDir, { recursive: true })
  await build({
    entryPoints: [join(root, 'src/cli/index.ts')],
    outfile: cli,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  })
  work = await tempDir('aeo-bin-')
  bundle = await buildBundle(work.path)
})
afterAll(async () => {
  await rm(outDir, { recursive: true, force: true })
  await work.remove()
})

function agentevalops(...args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 20_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe('the agentevalops executable', () => {
  it('validates bundles as a real process: exit 0 when valid, 1 with one line per finding', async () => {
    const ok = agentevalops('validate-bundle', bundle)
    expect(ok.stderr).toBe('')
    expect(ok.code).toBe(0)
    expect(ok.stdout).toBe(`ok: ${bundle} (6 trials, 42 events)\n`)

    const damaged = await copyBundle(bundle, join(work.path, 'damaged'))
    await writeFile(join(damaged, 'replay_command.txt'), 'rm -rf /\n')
    await rm(join(damaged, 'report.md'))
    const bad = agentevalops('validate-bundle', damaged)
    expect(bad.code).toBe(1)
    expect(bad.stdout.trimEnd().split('\n')).toEqual([
      'report.md: is missing (every bundle has one)',
      'replay_command.txt: size is 9 bytes but manifest.json says 31 (changed after the bundle was sealed)',
    ])
    expect(bad.stderr).toBe(`invalid: ${damaged} (2 findings)\n`)
  })

  it('exits 2 on a usage error and prints versions', () => {
    expect(agentevalops('nope').code).toBe(2)
    const version = agentevalops('version')
    expect(version.code).toBe(0)
    expect(version.stdout).toMatch(/^agentevalops \d+\.\d+\.\d+\nnode v\d+.*\nvitest \d+\.\d+\.\d+\n$/)
  })
})
