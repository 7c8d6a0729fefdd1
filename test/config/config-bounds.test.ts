import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadRunConfig, MAX_CONFIG_BYTES, parseRunConfig } from '../../src/config/index.ts'
import { MAX_YAML_DEPTH } from '../../src/core/index.ts'

// Issue 18, point 6: a huge, key-heavy or deeply nested config is refused quickly, with a located error.

const HEAD = 'name: ok\nbenchmark:\n  id: toy\nagent:\n  runner: mock-scripted\n'

function configError(text: string): ConfigError {
  try {
    parseRunConfig(text, 'configs/x.yaml')
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError)
    return e as ConfigError
  }
  return expect.unreachable('parseRunConfig accepted the config')
}

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentevalops-config-bounds-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('config bounds', () => {
  it('finds a duplicate key at the end of a 40k-key mapping, at its line, naming the first', () => {
    const count = 40_000
    const keys = Array.from({ length: count }, (_, i) => `  k${i}: ${i}`)
    // Line of `labels:` is 6; key k<i> is on line 7 + i; the duplicate follows the last key.
    const text = `${HEAD}labels:\n${keys.join('\n')}\n  k5: again\n`
    expect(configError(text).findings).toEqual([
      {
        file: 'configs/x.yaml',
        line: 7 + count,
        col: 3,
        path: '',
        message: 'duplicate key "k5" (first on line 12): map keys must be unique, remove or rename one',
      },
    ])
  })

  it('locates every one of 40k wrongly typed values of a mapping, the last at its line', () => {
    const count = 40_000
    const keys = Array.from({ length: count }, (_, i) => `  k${i}: ${i}`)
    const findings = configError(`${HEAD}labels:\n${keys.join('\n')}\n`).findings
    expect(findings).toHaveLength(count)
    expect(findings.at(-1)).toMatchObject({ line: 6 + count, col: 3, path: `labels.k${count - 1}` })
  })

  it('refuses a config file over the bound before reading it', async () => {
    const file = join(dir, 'huge.yaml')
    await writeFile(file, HEAD)
    await truncate(file, 53 * 1024 * 1024)
    const error = await loadRunConfig(file).then(
      () => expect.unreachable('loadRunConfig accepted a 53 MiB config'),
      (e: unknown) => e as ConfigError,
    )
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.code).toBe('CONFIG_INVALID')
    expect(error.message).toBe(
      `${file}:1:1: the file is 53.0 MiB, more than the 1 MiB a config may be: keep tasks and other bulk data in a dataset file the benchmark reads`,
    )
  })

  it('refuses config text over the bound, and takes text just under it', () => {
    const comment = (bytes: number) => `#${'x'.repeat(bytes - HEAD.length - 2)}\n`
    expect(configError(HEAD + comment(MAX_CONFIG_BYTES + 1)).message).toContain(
      'more than the 1 MiB a config may be',
    )
    expect(parseRunConfig(HEAD + comment(MAX_CONFIG_BYTES), 'configs/x.yaml').config.name).toBe('ok')
  })

  it('locates 100k-deep flow nesting instead of overflowing the stack', () => {
    const depth = 100_000
    const text = `${HEAD}labels:\n  x: ${'['.repeat(depth)}${']'.repeat(depth)}\n`
    // The root mapping and labels: are two levels; the list past the limit opens at that bracket of line 7.
    const col = '  x: '.length + 1 + (MAX_YAML_DEPTH - 2)
    expect(configError(text).findings).toEqual([
      {
        file: 'configs/x.yaml',
        line: 7,
        col,
        path: '',
        message: `the lists and mappings are nested too deep (more than ${MAX_YAML_DEPTH} levels): flatten the structure`,
      },
    ])
  })

  it('locates deep block mappings instead of overflowing the stack', () => {
    const depth = 1_000
    const nested = Array.from({ length: depth }, (_, i) => `${' '.repeat(i + 2)}k:`).join('\n')
    const text = `${HEAD}labels:\n${nested} 1\n`
    // The root is level 1; the mapping holding the k at line 7 + i, column 3 + i, is level 2 + i.
    const i = MAX_YAML_DEPTH + 1 - 2
    const [finding] = configError(text).findings
    expect(finding).toMatchObject({ line: 7 + i, col: 3 + i, path: '' })
    expect(finding!.message).toContain('nested too deep')
  })

  it('still takes nesting at the limit', () => {
    const text = `${HEAD}labels:\n  x: ${'['.repeat(MAX_YAML_DEPTH - 2)}${']'.repeat(MAX_YAML_DEPTH - 2)}\n`
    // labels must be strings: the schema finding proves the document was parsed and validated, not refused.
    expect(configError(text).findings.map((f) => f.path)).toEqual(['labels.x'])
  })
})
