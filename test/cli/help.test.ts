// Every sub-command answers --help (and -h) with its usage, exit 0, and runs nothing.
import { describe, expect, it } from 'vitest'
import { COMMANDS } from '../../src/cli/main.ts'
import { runCli } from './helpers.ts'

/** Commands whose long help lists options and exit codes (version takes no options). */
const OPTIONS: Record<string, readonly string[]> = {
  report: ['--output <file>', '--force'],
  'validate-bundle': ['--json'],
  init: ['--dir <path>', '--force'],
  doctor: ['--dir <path>', '--output <dir>'],
}

describe('<command> --help', () => {
  it.each(COMMANDS.map((c) => c.name))('%s --help prints its usage and exits 0', async (name) => {
    for (const flag of ['--help', '-h']) {
      const { code, stdout, stderr } = await runCli(name, flag)
      expect(code).toBe(0)
      expect(stderr).toBe('')
      expect(stdout).toMatch(new RegExp(`^Usage: agentevalops ${name}\\b`))
    }
    // `help <command>` shows the same usage line.
    const topic = await runCli('help', name)
    expect(topic.stdout).toMatch(new RegExp(`^Usage: agentevalops ${name}\\b`))
  })

  it.each(Object.entries(OPTIONS))('%s --help lists its options and exit codes', async (name, options) => {
    const { stdout } = await runCli(name, '--help')
    for (const option of [...options, '-h, --help']) expect(stdout).toContain(option)
    expect(stdout).toMatch(/\nExit codes:\n {2}0 {4}\S.*\n {2}1 {4}\S.*\n {2}2 {4}\S/)
  })

  it('--help wins over missing arguments (report and validate-bundle need a folder otherwise)', async () => {
    expect((await runCli('report', '--help')).code).toBe(0)
    expect((await runCli('validate-bundle', '--json', '--help')).code).toBe(0)
  })
})
