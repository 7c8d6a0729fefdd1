// `agentevalops validate-bundle --json`: one JSON document on stdout, the same exit codes as the text output.
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ValidateBundleJson } from '../../src/cli/commands/validate-bundle.ts'
import { buildBundle, copyBundle, tempDir } from '../bundles/fixtures.ts'
import { runCli } from './helpers.ts'

let work: Awaited<ReturnType<typeof tempDir>>
let bundle: string
beforeAll(async () => {
  work = await tempDir('aeo-validate-json-')
  bundle = await buildBundle(work.path)
})
afterAll(async () => work.remove())

function parse(stdout: string): ValidateBundleJson {
  return JSON.parse(stdout) as ValidateBundleJson
}

describe('agentevalops validate-bundle --json', () => {
  it('prints { ok: true, dir, trials, events, findings: [], notes: [] } for a valid bundle, exit 0', async () => {
    const { code, stdout, stderr } = await runCli('validate-bundle', '--json', bundle)
    expect(code).toBe(0)
    expect(stderr).toBe('')
    expect(parse(stdout)).toEqual({ ok: true, dir: bundle, trials: 6, events: 42, findings: [], notes: [] })
  })

  it('lists every finding as { check, file, message } for a damaged bundle, exit 1, nothing but JSON on stdout', async () => {
    const dir = await copyBundle(bundle, join(work.path, 'damaged'))
    await writeFile(join(dir, 'report.md'), '# tampered\n')
    await rm(join(dir, 'replay_command.txt'))
    const { code, stdout, stderr } = await runCli('validate-bundle', dir, '--json')
    expect(code).toBe(1)
    expect(stderr).toBe('')
    expect(parse(stdout)).toEqual({
      ok: false,
      dir,
      trials: 6,
      events: 42,
      findings: [
        { check: 'files-present', file: 'replay_command.txt', message: 'is missing (every bundle has one)' },
        {
          check: 'manifest-sizes',
          file: 'report.md',
          message: 'size is 11 bytes but manifest.json says 14 (changed after the bundle was sealed)',
        },
      ],
      notes: [],
    })
  })

  it('reports a folder that is not there as ok: false with one finding, exit 1', async () => {
    const dir = join(work.path, 'nope')
    const { code, stdout } = await runCli('validate-bundle', '--json', dir)
    expect(code).toBe(1)
    const report = parse(stdout)
    expect(report).toMatchObject({ ok: false, dir, trials: 0, events: 0 })
    expect(report.findings).toHaveLength(1)
    expect(report.findings[0]!.message).toMatch(/not a bundle folder/)
  })

  it('keeps usage errors at exit 2', async () => {
    expect((await runCli('validate-bundle', '--json')).code).toBe(2)
    expect((await runCli('validate-bundle', '--json=yes', bundle)).code).toBe(2)
  })
})
