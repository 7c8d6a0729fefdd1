import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { gitState } from '../../reporters/run-environment.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aeo-git-state-'))
  dirs.push(dir)
  return dir
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  })

function repoWithCommit(): string {
  const dir = tempDir()
  git(dir, 'init', '-q')
  writeFileSync(join(dir, 'a.txt'), 'one\n')
  git(dir, 'add', 'a.txt')
  git(dir, 'commit', '-q', '-m', 'first')
  return dir
}

describe('gitState', () => {
  it('names the checked-out commit of a clean checkout', async () => {
    const dir = repoWithCommit()
    expect(await gitState(dir)).toEqual({ sha: git(dir, 'rev-parse', 'HEAD').trim(), dirty: false })
  })

  it('is dirty when a tracked file changed, staged or not, and not for an untracked file', async () => {
    const dir = repoWithCommit()
    writeFileSync(join(dir, 'untracked.txt'), 'new\n')
    expect((await gitState(dir)).dirty).toBe(false)
    writeFileSync(join(dir, 'a.txt'), 'two\n')
    expect((await gitState(dir)).dirty).toBe(true)
    git(dir, 'add', 'a.txt')
    expect(await gitState(dir)).toEqual({ sha: git(dir, 'rev-parse', 'HEAD').trim(), dirty: true })
  })

  it('has no commit before the first one', async () => {
    const dir = tempDir()
    git(dir, 'init', '-q')
    expect((await gitState(dir)).sha).toBeNull()
  })

  it('gives nulls outside a checkout', async () => {
    expect(await gitState(tempDir())).toEqual({ sha: null, dirty: null })
  })
})
