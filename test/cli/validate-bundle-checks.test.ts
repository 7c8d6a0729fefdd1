// Every check of validate-bundle has a stable name, listed in --help and carried by each --json finding.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUNDLE_CHECKS, CHECK_NAMES } from '../../src/bundles/index.ts'
import type { ValidateBundleJson } from '../../src/cli/commands/validate-bundle.ts'
import { buildBundle, copyBundle, tempDir } from '../bundles/fixtures.ts'
import { runCli } from './helpers.ts'

let work: Awaited<ReturnType<typeof tempDir>>
let bundle: string
beforeAll(async () => {
  work = await tempDir('aeo-validate-checks-')
  bundle = await buildBundle(work.path)
})
afterAll(async () => work.remove())

describe('validate-bundle checks', () => {
  it('names at least a dozen checks, in kebab-case, each with a one-line description', () => {
    expect(CHECK_NAMES.length).toBeGreaterThanOrEqual(12)
    for (const name of CHECK_NAMES) {
      expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      expect(BUNDLE_CHECKS[name]).toMatch(/^[^\n]{10,110}$/)
    }
  })

  it('lists every check with its description in --help', async () => {
    const { code, stdout } = await runCli('validate-bundle', '--help')
    expect(code).toBe(0)
    for (const name of CHECK_NAMES) {
      expect(stdout).toMatch(new RegExp(`\\n {2}${name} +${escape(BUNDLE_CHECKS[name])}\\n`))
    }
  })

  it('puts the check of each finding in --json, next to file and message', async () => {
    const dir = await copyBundle(bundle, join(work.path, 'damaged'))
    await writeFile(join(dir, 'metadata.json'), '{"schemaVersion": 2, "runId": ')
    await writeFile(join(dir, 'stray.txt'), 'x')
    const { code, stdout } = await runCli('validate-bundle', '--json', dir)
    expect(code).toBe(1)
    const report = JSON.parse(stdout) as ValidateBundleJson
    expect(report.findings.map(({ check, file }) => `${check} ${file}`)).toEqual([
      'json-syntax metadata.json',
      'manifest-sizes metadata.json',
      'no-extra-files stray.txt',
    ])
    for (const finding of report.findings) expect(Object.keys(finding)).toEqual(['check', 'file', 'message'])
  })
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
