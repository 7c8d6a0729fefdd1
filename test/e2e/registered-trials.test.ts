// What a run registers is what its bundle holds, through real `vitest run`s of a throwaway project: two tasks of one
// id are refused before anything runs, and a trial whose case ended without a record is named by the run and by
// validate-bundle instead of silently missing.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  EVAL_IMPORTS,
  bundleDirs,
  createTempProject,
  listDir,
  readMetadata,
  readScores,
  runVitest,
  tail,
  validateWithCli,
  type TempProject,
  type VitestResult,
} from './helpers.ts'

/** An inline benchmark of `ids` whose scripted agent answers "yes" to each. */
function inlineBenchmark(id: string, ids: readonly string[]): string {
  const scripts = Object.fromEntries(
    ids.map((task) => [task, { steps: [{ kind: 'final_answer', answer: 'yes' }] }]),
  )
  return `{
  benchmark: {
    id: ${JSON.stringify(id)},
    version: '1',
    listTasks: () =>
      ${JSON.stringify(ids)}.map((task) =>
        defineTask({ id: task, benchmark: ${JSON.stringify(id)}, prompt: 'Say yes.', expected: 'yes' }),
      ),
    info: () => ({ id: ${JSON.stringify(id)}, version: '1', datasetChecksum: 'e2e' }),
  } satisfies BenchmarkAdapter,
  runner: mockRunner({ scripts: ${JSON.stringify(scripts)} }),
  evaluators: [matchesExpected()],
}`
}

const FILES = {
  'evals/dups.eval.ts': `${EVAL_IMPORTS}

evalBenchmark(${inlineBenchmark('dups', ['same', 'other', 'same'])})
`,
  // The case of task "lost" throws before its trial runs (its limits cannot be worked out), so no record is made.
  'evals/lost.eval.ts': `${EVAL_IMPORTS}

evalBenchmark({
  ...${inlineBenchmark('lossy', ['kept', 'lost'])},
  trials: 2,
  limits: (task) => {
    if (task.id === 'lost') throw new Error('no limits for this task')
    return {}
  },
})
`,
}

let project: TempProject
const runs: Partial<Record<'dups' | 'lost', { result: VitestResult; runsDir: string }>> = {}

async function run(name: 'dups' | 'lost'): Promise<void> {
  const runsDir = join(project.runsDir, name)
  await mkdir(runsDir)
  const result = await runVitest(['run', '--project', 'evals', `evals/${name}.eval.ts`], {
    cwd: project.root,
    runsDir,
    timeoutMs: 40_000,
  })
  runs[name] = { result, runsDir }
}

beforeAll(async () => {
  project = await createTempProject(FILES)
  await Promise.all([run('dups'), run('lost')])
}, 60_000)
afterAll(async () => {
  await project?.remove()
})

describe('registered trials in a real vitest run', { timeout: 50_000 }, () => {
  it('refuses two tasks of one id before any trial runs, naming both and the benchmark', async () => {
    const { result, runsDir } = runs.dups!
    expect(result.code, tail(result.output)).toBe(1)
    expect(result.output).toContain('AgentEvalOpsError')
    expect(result.output).toContain(
      'task id "same" is used twice: tasks[0] and tasks[2] of benchmark "dups".',
    )
    expect(result.output).toContain('Task ids must be unique within a benchmark')
    // Nothing ran: no bundle, and no trace of any trial was staged.
    expect(await bundleDirs(runsDir)).toEqual([])
    expect(await listDir(join(runsDir, '.staging'))).toEqual([])
  })

  it('records the registered trials and names the one whose case ended without a record', async () => {
    const { result, runsDir } = runs.lost!
    expect(result.code, tail(result.output)).toBe(1)
    const dirs = await bundleDirs(runsDir)
    expect(dirs, tail(result.output)).toHaveLength(1)
    const bundle = dirs[0]!
    expect((await readMetadata(bundle)).registeredTrials).toEqual([
      { benchmark: 'lossy', taskId: 'kept', trials: [0, 1] },
      { benchmark: 'lossy', taskId: 'lost', trials: [0, 1] },
    ])
    expect((await readScores(bundle)).trials.map((t) => `${t.taskId} #${t.trial}`)).toEqual([
      'kept #0',
      'kept #1',
    ])
    const missing = 'task "lost" trial 0 (benchmark "lossy"), task "lost" trial 1 (benchmark "lossy")'
    expect(result.output).toContain(`2 trial(s) the run registered are not in bundle`)
    expect(result.output).toContain(missing)
    const validated = await validateWithCli(bundle)
    expect(validated.code).toBe(1)
    expect(`${validated.stdout}\n${validated.stderr}`).toContain(
      `the run registered 4 trial(s), and 2 of them are not in scores.json: ${missing}`,
    )
  })
})
