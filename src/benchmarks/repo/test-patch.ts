import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AgentEvalOpsError } from '../../core/index.ts'
import { git, gitFailure, lastLines, runGit } from './git.ts'
import { isInside, withTempDir, type RepoEnv } from './worktree.ts'

/** Room for the names of the files a test patch touches (64 KiB, git()'s default, is a thousand or so). */
const LIST_BYTES = 8 * 1024 * 1024

export type TestPatchResult =
  | {
      applied: true
      /** Files the test patch touches that the agent had changed: their edits were discarded, as upstream does. */
      discarded: string[]
    }
  | { applied: false; why: string }

/**
 * Puts the instance's tests in place the way SWE-bench's evaluation script does: every file the test patch touches
 * is first reset to `base_commit` (`git checkout <base> <test files>`; a file the patch creates is removed), so an
 * agent's edits of those files neither block the patch nor change the tests it is graded by; then the patch is
 * applied. Run after the agent's diff is taken (the index holds the agent's changes, `git add -A`).
 *
 * A test patch that does not apply to `base_commit` is a broken instance (throws DATASET_INVALID). One that applies
 * there but not here is the agent's doing (say, a folder where the patch adds a file): `applied: false`.
 */
export async function applyTestPatch(
  env: RepoEnv,
  taskId: string,
  testPatch: string,
  signal: AbortSignal,
): Promise<TestPatchResult> {
  return withTempDir(env.workdir, async (dir) => {
    const patchFile = join(dir, 'test.patch')
    await writeFile(patchFile, testPatch)
    const touched = await touchedAtBase(env, taskId, patchFile, dir, signal)
    if (touched.length === 0) return { applied: true, discarded: [] }
    // Paths are data, not patterns: a test file named `test_[x].py` must not match others.
    const literal = { signal, env: { GIT_LITERAL_PATHSPECS: '1' }, maxOutputBytes: LIST_BYTES }
    const all = touched.map((t) => t.path)
    const discarded = nulList(
      await git(
        env.workdir,
        ['diff', '--cached', '--name-only', '-z', '--no-renames', env.baseCommit, '--', ...all],
        literal,
      ),
    )
    const existing = touched.filter((t) => t.status !== 'A').map((t) => t.path)
    if (existing.length > 0) await git(env.workdir, ['checkout', env.baseCommit, '--', ...existing], literal)
    for (const t of touched) {
      if (t.status !== 'A') continue
      const target = join(env.workdir, t.path)
      // git named it, but a path is only ever removed inside the worktree. One that cannot be removed (a file
      // stands where its folder should) is left for git apply to report.
      if (isInside(target, env.workdir))
        await rm(target, { recursive: true, force: true }).catch(() => undefined)
    }

    const applied = await runGit(env.workdir, ['apply', patchFile], { signal })
    if (applied.outcome === 'exited' && applied.exitCode === 0) return { applied: true, discarded }
    if (applied.outcome !== 'exited') throw gitFailure(['apply', '(test patch)'], applied, signal)
    return {
      applied: false,
      why: `the test patch does not apply to the agent's worktree: ${lastLines(applied.stderrTail)}`,
    }
  })
}

interface Touched {
  /** A, M or D against base_commit (renames are split into D and A). */
  status: string
  path: string
}

/**
 * The files the test patch touches, by git's own reading of it: applied to a spare index of `base_commit` (the
 * worktree untouched), then compared with that commit. Also checks the patch applies to `base_commit` at all.
 */
async function touchedAtBase(
  env: RepoEnv,
  taskId: string,
  patchFile: string,
  dir: string,
  signal: AbortSignal,
): Promise<Touched[]> {
  const index = { GIT_INDEX_FILE: join(dir, 'base.index') }
  await git(env.workdir, ['read-tree', env.baseCommit], { signal, env: index })
  const atBase = await runGit(env.workdir, ['apply', '--cached', patchFile], { signal, env: index })
  if (atBase.outcome !== 'exited') throw gitFailure(['apply', '(test patch, at base_commit)'], atBase, signal)
  if (atBase.exitCode !== 0) {
    throw new AgentEvalOpsError(
      'DATASET_INVALID',
      `the test_patch of instance ${JSON.stringify(taskId)} does not apply to its base_commit ${env.baseCommit}: ${lastLines(atBase.stderrTail)}`,
      { hint: 'Fix the instance: test_patch must be a diff against base_commit (as in SWE-bench).' },
    )
  }
  const fields = nulList(
    await git(
      env.workdir,
      ['diff-index', '--cached', '--name-status', '-z', '--no-renames', env.baseCommit],
      { signal, env: index, maxOutputBytes: LIST_BYTES },
    ),
  )
  const touched: Touched[] = []
  for (let i = 0; i + 1 < fields.length; i += 2) touched.push({ status: fields[i]!, path: fields[i + 1]! })
  return touched
}

function nulList(text: string): string[] {
  return text.split('\0').filter((s) => s !== '')
}
