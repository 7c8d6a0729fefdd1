// Vitest's merge keeps one copy of a test file per path: the copies task-level shards leave in their blob reports
// are folded into one first, so that every shard's cases are replayed.
import { describe, expect, it } from 'vitest'
import type { RunnerTask, RunnerTestFile, RunnerTestSuite } from 'vitest'
import { foldFileCopies } from '../../reporters/blob-copies.ts'

type Shape = { suite: string; tests: string[] }

/** A file task as a blob report holds it: parent links, ids by position, a result. */
function fileCopy(path: string, suites: Shape[], state: 'pass' | 'fail', startTime: number): RunnerTestFile {
  const file = {
    id: 'f',
    name: path,
    fullName: path,
    type: 'suite',
    mode: 'run',
    meta: {},
    filepath: `/root/${path}`,
    projectName: 'evals',
    tasks: [],
    result: { state, startTime, duration: 10 },
  } as unknown as RunnerTestFile
  file.file = file
  suites.forEach((shape, i) => {
    const suite = {
      id: `f_${i}`,
      name: shape.suite,
      type: 'suite',
      mode: 'run',
      meta: {},
      file,
      suite: file,
      tasks: [],
      result: { state, startTime, duration: 10 },
    } as unknown as RunnerTestSuite
    suite.tasks = shape.tests.map(
      (name, j) =>
        ({
          id: `f_${i}_${j}`,
          name,
          type: 'test',
          mode: 'run',
          meta: {},
          file,
          suite,
          result: { state: 'pass' },
        }) as unknown as RunnerTask,
    )
    file.tasks.push(suite)
  })
  return file
}

function allTasks(task: RunnerTask): RunnerTask[] {
  return task.type === 'suite' ? [task, ...task.tasks.flatMap(allTasks)] : [task]
}

describe('folding the copies of one test file from several blob reports', () => {
  it("keeps one file with every copy's cases under the suite of the same name, each case with an id of its own", () => {
    const files = [
      fileCopy('evals/a.eval.ts', [{ suite: 'alpha', tests: ['t1 #0', 't3 #0'] }], 'pass', 200),
      fileCopy('evals/b.eval.ts', [{ suite: 'beta', tests: ['t1 #0'] }], 'pass', 300),
      fileCopy(
        'evals/a.eval.ts',
        [
          { suite: 'alpha', tests: ['t2 #0'] },
          { suite: 'other', tests: ['x'] },
        ],
        'fail',
        100,
      ),
    ]
    const first = files[0]!
    expect(foldFileCopies(files)).toBe(1)
    expect(files.map((f) => f.name)).toEqual(['evals/a.eval.ts', 'evals/b.eval.ts'])
    expect(first.tasks.map((t) => t.name)).toEqual(['alpha', 'other'])
    const alpha = first.tasks[0] as RunnerTestSuite
    expect(alpha.tasks.map((t) => t.name)).toEqual(['t1 #0', 't3 #0', 't2 #0'])
    const tasks = allTasks(first)
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length)
    // Moved cases point at the file and suite they are in now.
    for (const t of tasks.slice(1)) expect(t.file).toBe(first)
    expect(alpha.tasks[2]!.suite).toBe(alpha)
    expect(first.tasks[1]!.suite).toBe(first)
    // The file failed if a copy failed; it started with the earliest copy.
    expect(first.result).toMatchObject({ state: 'fail', startTime: 100, duration: 20 })
  })

  it('changes nothing when every file is there once (a file shard, one machine)', () => {
    const files = [
      fileCopy('evals/a.eval.ts', [{ suite: 'alpha', tests: ['t1 #0'] }], 'pass', 1),
      fileCopy('evals/b.eval.ts', [{ suite: 'beta', tests: ['t1 #0'] }], 'pass', 2),
    ]
    const before = [...files]
    expect(foldFileCopies(files)).toBe(0)
    expect(files).toEqual(before)
    expect(allTasks(files[0]!).map((t) => t.id)).toEqual(['f', 'f_0', 'f_0_0'])
  })
})
