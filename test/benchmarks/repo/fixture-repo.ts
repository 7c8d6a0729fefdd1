// A tiny Python repository with a bug, and a SWE-bench instance for it, built in a temp folder by the tests (and by
// evals that need a `repo` benchmark to run). Needs git and python3 on the PATH; nothing else (no pytest).
import { execFile } from 'node:child_process'
import { mkdir, realpath, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The instance's id, and its tests as the fixture's TAP runner names them (unittest ids). */
export const FIXTURE_INSTANCE_ID = 'fixture__calc-1'
export const FIXTURE_TESTS = {
  add: 'tests.test_ops.OpsTest.test_add',
  mul: 'tests.test_ops.OpsTest.test_mul',
  clampLow: 'tests.test_ops.OpsTest.test_clamp_low',
  /** Added by the test patch; fails until clamp() is fixed. */
  clampHigh: 'tests.test_ops.OpsTest.test_clamp_high',
} as const

const OPS_HEAD = `def add(a, b):
    return a + b


def mul(a, b):
    return a * b
`
const CLAMP = (high: string) => `

def clamp(x, lo, hi):
    """Limit x to the range [lo, hi]."""
    if x < lo:
        return lo
    if x > hi:
        return ${high}
    return x
`
/** calc/ops.py at the base commit: clamp() returns the low bound for values above the range. */
export const OPS_BUGGY = OPS_HEAD + CLAMP('lo')
/** calc/ops.py fixed: what the gold patch makes of it. */
export const OPS_FIXED = OPS_HEAD + CLAMP('hi')
/** Fixed, but mul() broken on the way: PASS_TO_PASS test_mul fails. */
export const OPS_FIXED_MUL_BROKEN = OPS_FIXED.replace('return a * b', 'return a * b + 1')
/** clamp() hangs: the tests never finish. */
export const OPS_HANGING = OPS_FIXED.replace(
  '    if x < lo:',
  '    import time\n    time.sleep(60)\n    if x < lo:',
)

const TESTS_BASE = `import unittest

from calc import add, clamp, mul


class OpsTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_mul(self):
        self.assertEqual(mul(4, 5), 20)

    def test_clamp_low(self):
        self.assertEqual(clamp(-3, 0, 10), 0)
        self.assertEqual(clamp(4, 0, 10), 4)
`
const TESTS_WITH_HIGH = `${TESTS_BASE}
    def test_clamp_high(self):
        self.assertEqual(clamp(42, 0, 10), 10)
`

/** Runs every unittest test one by one and prints TAP, test ids as names (stable across Python versions). */
const RUN_TESTS = `import os
import sys
import unittest


def cases(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from cases(test)
        else:
            yield test


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    tests = list(cases(unittest.defaultTestLoader.discover(os.path.join(root, "tests"), top_level_dir=root)))
    print("TAP version 13")
    print("1..%d" % len(tests))
    failed = 0
    for number, test in enumerate(tests, 1):
        result = unittest.TestResult()
        test.run(result)
        if result.skipped:
            print("ok %d - %s # SKIP %s" % (number, test.id(), result.skipped[0][1]))
        elif result.wasSuccessful():
            print("ok %d - %s" % (number, test.id()))
        else:
            failed += 1
            print("not ok %d - %s" % (number, test.id()))
            for _, trace in result.failures + result.errors:
                for line in trace.rstrip().splitlines():
                    print("# " + line)
        sys.stdout.flush()
    return 1 if failed else 0


sys.exit(main())
`

export interface FixtureRepo {
  /** The folder holding the repository and the instances file (a real path, no symlinks). */
  dir: string
  /** The repository (`<dir>/calc-repo`), its HEAD past the base commit (the upstream fix is committed there). */
  repoPath: string
  /** `<dir>/instances.jsonl`, one instance, `repo` written relative to the file. */
  instancesPath: string
  baseCommit: string
  headCommit: string
  /** The instance as written to the file (FAIL_TO_PASS/PASS_TO_PASS as JSON strings, as SWE-bench has them). */
  instance: Record<string, unknown>
}

export interface FixtureOptions {
  /**
   * The Python interpreter the test command runs. Default: the one `python3` on the PATH resolves to, by its real
   * path (a pyenv shim costs most of a second per start).
   */
  python?: string
  /** The upstream fix also adds `tests/extra/test_extra.py` (a passing test), so the test patch creates a file. */
  testPatchAddsFile?: boolean
}

const EXTRA_TEST = `import unittest


class ExtraTest(unittest.TestCase):
    def test_extra(self):
        self.assertTrue(True)
`

let pythonPath: Promise<string> | undefined

/** The interpreter behind `python3` on the PATH (sys.executable), found once. */
export function realPython(): Promise<string> {
  pythonPath ??= run('python3', ['-c', 'import sys; print(sys.executable)']).then(({ stdout }) =>
    stdout.trim(),
  )
  return pythonPath
}

/** git with a fixed identity and dates and none of the machine's config, so the commits are the same everywhere. */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const date = '2024-01-01T00:00:00Z'
  const { stdout } = await run(
    'git',
    [
      '-c',
      'user.name=Fixture',
      '-c',
      'user.email=fixture@example.com',
      '-c',
      'commit.gpgsign=false',
      ...args,
    ],
    {
      cwd,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: cwd,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
        LC_ALL: 'C',
      },
    },
  )
  return stdout
}

async function write(root: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, name)), { recursive: true })
    await writeFile(join(root, name), content)
  }
}

/**
 * Builds `<dir>/calc-repo` (three commits: the package, the buggy clamp() — the base commit —, the upstream fix with
 * its test) and `<dir>/instances.jsonl` with the instance: test_patch adds test_clamp_high, patch is the fix.
 */
export async function buildFixtureRepo(dir: string, options: FixtureOptions = {}): Promise<FixtureRepo> {
  await mkdir(dir, { recursive: true })
  const root = await realpath(dir)
  const repoPath = join(root, 'calc-repo')
  await mkdir(repoPath, { recursive: true })
  await git(repoPath, 'init', '-q', '-b', 'main')
  await write(repoPath, {
    '.gitignore': '__pycache__/\n*.pyc\n',
    'calc/__init__.py': 'from .ops import add, mul\n',
    'calc/ops.py': OPS_HEAD,
    'tests/__init__.py': '',
    'tests/test_ops.py': TESTS_BASE.replace(', clamp', '').replace(/\n {4}def test_clamp_low[\s\S]*$/, ''),
    'run_tests.py': RUN_TESTS,
  })
  await git(repoPath, 'add', '-A')
  await git(repoPath, 'commit', '-q', '-m', 'calc: add and mul')

  await write(repoPath, {
    'calc/__init__.py': 'from .ops import add, clamp, mul\n',
    'calc/ops.py': OPS_BUGGY,
    'tests/test_ops.py': TESTS_BASE,
  })
  await git(repoPath, 'add', '-A')
  await git(repoPath, 'commit', '-q', '-m', 'calc: clamp')
  const baseCommit = (await git(repoPath, 'rev-parse', 'HEAD')).trim()

  await write(repoPath, {
    'calc/ops.py': OPS_FIXED,
    'tests/test_ops.py': TESTS_WITH_HIGH,
    ...(options.testPatchAddsFile
      ? { 'tests/extra/__init__.py': '', 'tests/extra/test_extra.py': EXTRA_TEST }
      : {}),
  })
  await git(repoPath, 'add', '-A')
  await git(repoPath, 'commit', '-q', '-m', 'calc: clamp returns hi above the range')
  const headCommit = (await git(repoPath, 'rev-parse', 'HEAD')).trim()

  const testPatch = await git(repoPath, 'diff', baseCommit, headCommit, '--', 'tests')
  const patch = await git(repoPath, 'diff', baseCommit, headCommit, '--', 'calc')
  const instance = {
    instance_id: FIXTURE_INSTANCE_ID,
    repo: 'calc-repo',
    base_commit: baseCommit,
    problem_statement: 'clamp(x, lo, hi) returns lo when x is above hi; it should return hi.',
    test_patch: testPatch,
    patch,
    FAIL_TO_PASS: JSON.stringify([FIXTURE_TESTS.clampHigh]),
    PASS_TO_PASS: JSON.stringify([FIXTURE_TESTS.add, FIXTURE_TESTS.mul, FIXTURE_TESTS.clampLow]),
    test_command: [options.python ?? (await realPython()), 'run_tests.py'],
    test_output_format: 'tap',
    version: '0.1',
    hints_text: '',
  }
  const instancesPath = join(root, 'instances.jsonl')
  await writeInstances(instancesPath, [instance])
  return { dir: root, repoPath, instancesPath, baseCommit, headCommit, instance }
}

/** Writes instances as JSON Lines. */
export async function writeInstances(file: string, instances: readonly object[]): Promise<void> {
  await writeFile(file, instances.map((i) => JSON.stringify(i)).join('\n') + '\n')
}

/** The paths `git worktree list` shows for a repository, the main worktree first. */
export async function worktreePaths(repoPath: string): Promise<string[]> {
  const out = await git(repoPath, 'worktree', 'list', '--porcelain')
  return out
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length))
}
