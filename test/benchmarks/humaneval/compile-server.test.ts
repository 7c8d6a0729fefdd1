import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { executeCheck, resolvePython } from '../../../src/benchmarks/index.ts'
import { compileAhead } from '../../../src/benchmarks/humaneval/compile-server.ts'

let dir: string
let python: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aeo-compile-server-'))
  python = await resolvePython('python3')
})
afterAll(() => rm(dir, { recursive: true, force: true }))

async function compileFile(name: string, source: string): Promise<{ compiled: boolean; target: string }> {
  const path = join(dir, `${name}.py`)
  const target = join(dir, `${name}.marshal`)
  await writeFile(path, source)
  return { compiled: await compileAhead(python, path, target), target }
}

describe('compiling checks ahead of the fork', () => {
  it('writes the code object of a valid program', async () => {
    const { compiled, target } = await compileFile('ok', 'def f(x):\n    return x + 1\nassert f(1) == 2\n')
    expect(compiled).toBe(true)
    expect((await stat(target)).size).toBeGreaterThan(0)
  })

  it('leaves a program that does not compile, or a huge one, to the child', async () => {
    expect((await compileFile('bad', 'def f(:\n')).compiled).toBe(false)
    expect((await compileFile('huge', `x = 1\n${'#'.repeat(2 << 20)}\n`)).compiled).toBe(false)
  })

  it("fails a program with a syntax error in upstream's words, compiled by its own child", async () => {
    const result = await executeCheck({
      python,
      program: 'def f(:\n    pass\n',
      timeoutSeconds: 10,
      memoryBytes: 512 * 1024 * 1024,
    })
    expect(result.status).toBe('failed')
    expect(result.detail).toMatch(/^failed: SyntaxError/)
  })

  it('runs a program never compiled ahead (over the size limit) all the same', async () => {
    const result = await executeCheck({
      python,
      program: `assert 1 + 1 == 2\n${'#'.repeat(2 << 20)}\n`,
      timeoutSeconds: 10,
      memoryBytes: 512 * 1024 * 1024,
    })
    expect(result.status).toBe('passed')
  })
})
