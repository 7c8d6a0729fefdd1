import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.ts'
import type { CliIO } from '../../src/cli/io.ts'
import { buildBundle, copyBundle, tempDir } from '../bundles/fixtures.ts'

function recorder(): CliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = []
  const stderr: string[] = []
  return { stdout, stderr, out: (line) => void stdout.push(line), err: (line) => void stderr.push(line) }
}

async function run(...argv: string[]) {
  const io = recorder()
  const code = await main(argv, io)
  return { code, stdout: io.stdout.join('\n'), stderr: io.stderr.join('\n'), lines: io.stdout }
}

let work: Awaited<ReturnType<typeof tempDir>>
let bundle: string
beforeAll(async () => {
  work = await tempDir('aeo-cli-')
  bundle = await buildBundle(work.path)
})
afterAll(async () => work.remove())

describe('agentevalops main()', () => {
  it('prints usage listing the commands for --help, -h and help, exit 0', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const { code, stdout } = await run(flag)
      expect(code).toBe(0)
      expect(stdout).toMatch(/^Usage: agentevalops <command>/)
      expect(stdout).toMatch(/validate-bundle <dir> \[options\]\s+Check a result bundle/)
      expect(stdout).toMatch(/\n {2}version\s+Print the versions/)
    }
  })

  it("prints a command's own usage for `help <command>` and `<command> --help`", async () => {
    expect((await run('help', 'validate-bundle')).stdout).toMatch(
      /^Usage: agentevalops validate-bundle <dir> \[options\]/,
    )
    const { code, stdout } = await run('validate-bundle', '--help')
    expect(code).toBe(0)
    expect(stdout).toMatch(/^Usage: agentevalops validate-bundle <dir>/)
  })

  it('exits 2 with usage when no command is given', async () => {
    const { code, stderr } = await run()
    expect(code).toBe(2)
    expect(stderr).toMatch(/^Usage: agentevalops/)
  })

  it('exits 2 with a hint for an unknown command', async () => {
    const { code, stdout, stderr } = await run('frobnicate')
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toBe(
      "agentevalops: unknown command 'frobnicate'\nRun 'agentevalops --help' to list the commands.",
    )
  })

  it('exits 2 with the usage when validate-bundle misses its folder or gets an unknown option', async () => {
    const missing = await run('validate-bundle')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/missing the bundle folder/)
    expect(missing.stderr).toMatch(/Usage: agentevalops validate-bundle <dir>/)
    const unknown = await run('validate-bundle', '--strictly', bundle)
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/Unknown option '--strictly'/)
    const two = await run('validate-bundle', bundle, bundle)
    expect(two.code).toBe(2)
  })

  it('prints the sdk, node and vitest versions', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    const vitest = JSON.parse(
      await readFile(new URL('../../node_modules/vitest/package.json', import.meta.url), 'utf8'),
    ) as { version: string }
    const { code, lines } = await run('version')
    expect(code).toBe(0)
    expect(lines).toEqual([
      `agentevalops ${pkg.version}`,
      `node ${process.version}`,
      `vitest ${vitest.version}`,
    ])
    expect((await run('--version')).lines).toEqual(lines)
  })

  it('exits 0 with a one-line summary for a valid bundle', async () => {
    const { code, lines, stderr } = await run('validate-bundle', bundle)
    expect(code).toBe(0)
    expect(lines).toEqual([`ok: ${bundle} (6 trials, 42 events)`])
    expect(stderr).toBe('')
  })

  it('exits 1 with one line per finding for a damaged bundle', async () => {
    const dir = await copyBundle(bundle, join(work.path, 'damaged'))
    await writeFile(join(dir, 'report.md'), '# tampered\n')
    await writeFile(join(dir, 'stray.txt'), 'x')
    const { code, lines, stderr } = await run('validate-bundle', dir)
    expect(code).toBe(1)
    expect(lines).toEqual([
      'report.md: size is 11 bytes but manifest.json says 14 (changed after the bundle was sealed)',
      'stray.txt: is not listed in manifest.json',
    ])
    expect(stderr).toBe(`invalid: ${dir} (2 findings)`)
  })

  it('exits 1 for a folder that does not exist', async () => {
    const { code, lines } = await run('validate-bundle', join(work.path, 'nope'))
    expect(code).toBe(1)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^\.: .*not a bundle folder/)
  })
})
