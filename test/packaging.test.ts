// What a user who installs the package gets: no install-time script (npm 11 warns about those), a licence, the
// HumanEval copy that humanEvalBenchmark() reads by default, and every doc the README, the docs and our error
// messages point at. The file list is npm's own (`npm pack --dry-run`), so it is what the tarball holds.
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { z } from 'zod'
import { beforeAll, describe, expect, it } from 'vitest'
import { humanEvalBenchmark, shippedHumanEvalPath } from '../src/benchmarks/index.ts'
import { docPath, ownPackage } from '../src/core/index.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '')
const PackJson = z.array(z.object({ files: z.array(z.object({ path: z.string() })) })).length(1)
/** npm runs these on a consumer's install (or warns that it did not). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare']

let packed: Set<string>
let pkg: { license?: string; scripts?: Record<string, string>; files?: string[] }

beforeAll(async () => {
  pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as typeof pkg
  // --ignore-scripts: listing the files must not run prepack's build.
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  })
  packed = new Set(PackJson.parse(JSON.parse(stdout))[0]!.files.map((f) => f.path))
}, 60_000)

/** Relative link targets of a markdown file, resolved against the repository root. */
async function relativeLinks(file: string): Promise<string[]> {
  const text = await readFile(join(ROOT, file), 'utf8')
  const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!.split('#')[0]!)
  return targets
    .filter((t) => t !== '' && !/^[a-z][a-z+.-]*:/i.test(t))
    .map((t) => normalize(join(dirname(file), t)))
}

describe('the published package', () => {
  it('runs no script when a consumer installs it (the build runs on prepack)', () => {
    const scripts = pkg.scripts ?? {}
    expect(INSTALL_SCRIPTS.filter((name) => name in scripts)).toEqual([])
    expect(scripts['prepack']).toBe('tsup')
  })

  it('ships an MIT licence, the one package.json names', async () => {
    expect(packed.has('LICENSE')).toBe(true)
    expect(pkg.license).toBe('MIT')
    expect(await readFile(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/)
  })

  it('ships HumanEval with its licence, and humanEvalBenchmark() reads that copy with no path', async () => {
    const shipped = relative(ROOT, shippedHumanEvalPath())
    expect(shipped).toBe('datasets/humaneval/HumanEval.jsonl.gz')
    expect(packed.has(shipped)).toBe(true)
    expect(packed.has('datasets/humaneval/LICENSE')).toBe(true)
    expect(await readFile(join(ROOT, 'datasets/humaneval/LICENSE'), 'utf8')).toContain('Copyright (c) OpenAI')

    const tasks = await humanEvalBenchmark().listTasks()
    expect(tasks).toHaveLength(164)
    expect(tasks[0]!.id).toBe('HumanEval/0')
  })

  it('ships every file that the README and the docs link to', async () => {
    const docs = [...packed].filter((p) => p.startsWith('docs/') && p.endsWith('.md'))
    expect(docs.length).toBeGreaterThan(5)
    const missing: string[] = []
    for (const file of ['README.md', ...docs]) {
      for (const target of await relativeLinks(file)) {
        if (!packed.has(target)) missing.push(`${file} → ${target}`)
      }
    }
    expect(missing).toEqual([])
  })

  it('names docs in messages by a path that exists where the package is installed', async () => {
    expect(ownPackage()?.root).toBe(ROOT)
    expect(docPath('statistics.md')).toBe(join('docs', 'statistics.md'))
    expect(packed.has(docPath('statistics.md'))).toBe(true)
  })
})
