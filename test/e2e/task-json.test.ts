// Tasks a benchmark hands evalBenchmark by hand (not through defineTask) are checked once before any case runs:
// Vitest's output names each task, field and fix on a line of its own, instead of JSON.stringify's TypeError
// from deep inside a trial.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EVAL_IMPORTS, bundleDirs, createTempProject, runVitest, tail, type TempProject } from './helpers.ts'

const evalFile = `${EVAL_IMPORTS}

const checksum = '0'.repeat(64)
const tasks = [
  { id: 'fine', benchmark: 'hand', prompt: 'p', metadata: {}, checksum },
  { id: 'big', benchmark: 'hand', prompt: 'p', metadata: {}, checksum, input: { n: 10n } },
  { id: 'when', benchmark: 'hand', prompt: 'p', metadata: {}, checksum, expected: { at: new Date(0), score: NaN } },
] as unknown as TaskSpec[]
const benchmark: BenchmarkAdapter = {
  id: 'hand',
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: 'hand', version: '1', datasetChecksum: 'e2e' }),
}
evalBenchmark({ benchmark, runner: mockRunner({ scripts: {} }), evaluators: [matchesExpected()] })
`

let project: TempProject
beforeAll(async () => {
  project = await createTempProject({ 'evals/hand.eval.ts': evalFile })
})
afterAll(async () => project?.remove())

describe('hand-built tasks that are not plain JSON', { timeout: 60_000 }, () => {
  it('fail the eval file before anything runs, one line per problem', async () => {
    const result = await runVitest(['run', '--project', 'evals'], {
      cwd: project.root,
      runsDir: project.runsDir,
      timeoutMs: 40_000,
    })
    expect(result.code, tail(result.output)).not.toBe(0)
    const lines = result.output.split('\n')
    const line = (start: string) => lines.find((l) => l.includes(start))
    expect(
      line('task "big": input.n is a BigInt (10n); tasks must be plain JSON — pass a number'),
      tail(result.output),
    ).toBeDefined()
    expect(
      line(
        'task "when": expected.at is a Date; tasks must be plain JSON — pass an ISO string (date.toISOString())',
      ),
    ).toBeDefined()
    expect(line('task "when": expected.score is NaN; tasks must be plain JSON')).toBeDefined()
    expect(result.output).not.toContain('Do not know how to serialize')
    expect(result.output).not.toContain('task "fine"')
    // No trial ran, so there is no bundle claiming results.
    expect(await bundleDirs(project.runsDir)).toEqual([])
  })
})
