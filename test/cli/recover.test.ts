import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from '../bundles/fixtures.ts'
import { runCli } from './helpers.ts'

let work: { path: string; remove: () => Promise<void> }
beforeAll(async () => {
  work = await tempDir('aeo-recover-cli-')
})
afterAll(async () => {
  await work.remove()
})

describe('agentevalops recover', () => {
  it('says there is nothing to recover in a runs folder without staging folders (exit 0)', async () => {
    const r = await runCli('recover', work.path)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^nothing to recover in /)
  })

  it('leaves an empty staging folder alone and says so (exit 1)', async () => {
    const staging = join(work.path, '.staging', 'empty')
    await mkdir(join(staging, 'traces'), { recursive: true })
    const r = await runCli('recover', staging)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('holds no trial to recover; it is left as it is')
  })

  it('reports a missing folder (exit 1) and bad arguments (exit 2)', async () => {
    expect((await runCli('recover', join(work.path, 'nowhere'))).code).toBe(1)
    expect((await runCli('recover')).code).toBe(2)
    expect((await runCli('recover', 'a', 'b')).code).toBe(2)
  })
})
