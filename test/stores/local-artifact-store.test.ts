import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAgentEvalOpsError } from '../../src/core/index.ts'
import { LocalArtifactStore } from '../../src/stores/index.ts'
import { tempDir } from '../bundles/fixtures.ts'

let work: { path: string; remove: () => Promise<void> }
let store: LocalArtifactStore
beforeEach(async () => {
  work = await tempDir('aeo-artifacts-')
  await mkdir(join(work.path, 'root'))
  await mkdir(join(work.path, 'outside'))
  store = new LocalArtifactStore(join(work.path, 'root'))
})
afterEach(async () => {
  await work.remove()
})

async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run()
  } catch (e) {
    expect(isAgentEvalOpsError(e, 'ARTIFACT_PATH_INVALID')).toBe(true)
    return (e as Error).message
  }
  throw new Error('expected a refusal')
}

describe('LocalArtifactStore', () => {
  it('writes and reads artifacts by relative path', async () => {
    expect(await store.put('out/report.txt', 'hello')).toBe(join('out', 'report.txt'))
    expect(Buffer.from(await store.get('out/report.txt')).toString()).toBe('hello')
    expect(await readFile(join(work.path, 'root', 'out', 'report.txt'), 'utf8')).toBe('hello')
  })

  it('refuses ../x, absolute paths and a NUL byte with a clear error', async () => {
    expect(await refusal(() => store.put('../x', 'x'))).toMatch(/"..\/x" is refused: it climbs out with \.\./)
    expect(await refusal(() => store.put('a/../../x', 'x'))).toMatch(/climbs out/)
    expect(await refusal(() => store.put('/etc/passwd', 'x'))).toMatch(
      /"\/etc\/passwd" is refused: it is an absolute path/,
    )
    expect(await refusal(() => store.get('/etc/passwd'))).toMatch(/absolute path/)
    expect(await refusal(() => store.put('C:\\x', 'x'))).toMatch(/absolute path/)
    expect(await refusal(() => store.put('a\0b', 'x'))).toMatch(/NUL/)
  })

  it('refuses a symlink to outside, as a folder on the way or as the file itself', async () => {
    await symlink(join(work.path, 'outside'), join(work.path, 'root', 'link'))
    expect(await refusal(() => store.put('link/x.txt', 'x'))).toMatch(/a symlink on its path leads outside/)
    await writeFile(join(work.path, 'outside', 'secret'), 's')
    await symlink(join(work.path, 'outside', 'secret'), join(work.path, 'root', 'file-link'))
    expect(await refusal(() => store.get('file-link'))).toMatch(/it is a symlink/)
    expect(await refusal(() => store.put('file-link', 'overwrite'))).toMatch(/it is a symlink/)
    expect(await readFile(join(work.path, 'outside', 'secret'), 'utf8')).toBe('s')
  })
})
