// `agentevalops report <bundle>` re-renders the derived files of a bundle whose records are intact: a real bundle
// from `agentevalops run`, damaged in its report.md (then its report.html and spans.jsonl), is made valid again,
// and a bundle whose scores.json is damaged is refused and left as it was.
import { cp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { bundleDirs, runCli, tail, useBuiltCli } from './helpers.ts'

const { cli, newTemp } = useBuiltCli(30_000)

let bundle: string

/** A copy of the run's bundle, to damage. */
async function copy(name: string): Promise<string> {
  const dir = join(await newTemp(`aeo-rerender-${name}-`), 'bundle')
  await cp(bundle, dir, { recursive: true })
  return dir
}

async function validate(dir: string) {
  return runCli(cli(), ['validate-bundle', dir], { runsDir: dir, timeoutMs: 60_000 })
}

async function report(dir: string) {
  return runCli(cli(), ['report', dir], { runsDir: dir, timeoutMs: 60_000 })
}

describe('agentevalops report re-renders derived files', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    const runsDir = await newTemp('aeo-rerender-runs-')
    const result = await runCli(cli(), ['run', 'configs/toy_smoke.yaml'], { runsDir, timeoutMs: 90_000 })
    expect(result.code, tail(result.output)).toBe(0)
    const dirs = await bundleDirs(runsDir)
    expect(dirs).toHaveLength(1)
    bundle = dirs[0]!
  }, 120_000)

  it('replaces a damaged report.md, says so, and leaves a bundle validate-bundle passes', async () => {
    const dir = await copy('md')
    const own = await readFile(join(dir, 'report.md'), 'utf8')
    await writeFile(join(dir, 'report.md'), `${own}\nedited by hand\n`)
    const before = await validate(dir)
    expect(before.code).toBe(1)
    expect(before.stdout + before.stderr).toContain('report.md')

    const result = await report(dir)
    expect(result.code, tail(result.output)).toBe(0)
    expect(result.stderr).toContain('agentevalops report: report.md: replaced (checksum mismatch)')
    expect(result.stderr).not.toContain('report.html')
    const rendered = await readFile(join(dir, 'report.md'), 'utf8')
    expect(rendered).not.toContain('edited by hand')
    expect(rendered).toBe(own)
    expect(result.stdout).toBe(rendered)

    const after = await validate(dir)
    expect(after.code, after.output).toBe(0)
    // Valid now: a second report modifies nothing and says nothing on stderr.
    const manifest = await readFile(join(dir, 'manifest.json'), 'utf8')
    const again = await report(dir)
    expect(again.code).toBe(0)
    expect(again.stderr).toBe('')
    expect(await readFile(join(dir, 'manifest.json'), 'utf8')).toBe(manifest)
  })

  it('makes a missing report.html and a damaged spans.jsonl again', async () => {
    const dir = await copy('html')
    await rm(join(dir, 'report.html'))
    await writeFile(join(dir, 'spans.jsonl'), 'not json\n')
    const result = await report(dir)
    expect(result.code, tail(result.output)).toBe(0)
    expect(result.stderr).toContain('report.html: replaced (missing)')
    expect(result.stderr).toContain('spans.jsonl: replaced (checksum mismatch)')
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toMatch(/^<!doctype html>/)
    const after = await validate(dir)
    expect(after.code, after.output).toBe(0)
  })

  it('refuses a bundle whose scores.json is damaged, naming it, and modifies nothing', async () => {
    const dir = await copy('scores')
    const scores = await readFile(join(dir, 'scores.json'), 'utf8')
    await writeFile(join(dir, 'scores.json'), scores.replace('"passed": true', '"passed": false'))
    await writeFile(join(dir, 'report.md'), 'damaged too\n')
    const manifest = await readFile(join(dir, 'manifest.json'), 'utf8')

    const result = await report(dir)
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/cannot be re-rendered: scores\.json is damaged/)
    expect(result.stderr).toContain(`Run 'agentevalops validate-bundle ${dir}' for every finding`)
    expect(result.stderr).toContain("'agentevalops recover")
    expect(result.stderr).not.toContain('replaced')
    expect(await readFile(join(dir, 'report.md'), 'utf8')).toBe('damaged too\n')
    expect(await readFile(join(dir, 'manifest.json'), 'utf8')).toBe(manifest)
  })
})
