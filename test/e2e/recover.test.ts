// SIGKILL of a 200-trial `vitest run` at seeded random moments, then `agentevalops recover`: every trial whose record
// had been written is in the recovered bundle with identical scores, the cut-short ones are marked interrupted, the
// bundle validates, and a run started before recovering says how to recover.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateBundle } from '../../src/bundles/index.ts'
import { TrialRecord } from '../../src/core/index.ts'
import { seededRandom } from '../../src/scorers/index.ts'
import { runCli } from '../cli/helpers.ts'
import {
  EVAL_IMPORTS,
  VitestProcess,
  bundleDirs,
  createTempProject,
  listDir,
  pollUntil,
  readScores,
  stagedRecordLines,
  runVitest,
  tail,
  type TempProject,
} from './helpers.ts'

const TASKS = 50
const TRIALS = 4

// 50 tasks × 4 trials, each trial 20–60 ms over three delayed steps, eight in flight: about 1.5 s of trials.
const evalFile = `${EVAL_IMPORTS}

const tasks: TaskSpec[] = Array.from({ length: ${TASKS} }, (_, i) =>
  defineTask({ id: 'task-' + String(i).padStart(2, '0'), benchmark: 'crash', prompt: 'task ' + i, expected: 'done', metadata: { category: 'c' + (i % 3) } }),
)
const benchmark: BenchmarkAdapter = {
  id: 'crash',
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: 'crash', version: '1', datasetChecksum: 'e2e' }),
}
evalBenchmark({
  benchmark,
  trials: ${TRIALS},
  gate: { minPassRate: 0 },
  runner: mockRunner({
    scripts: (task) => ({
      steps: [
        { kind: 'plan', text: 'start ' + task.id, delayMs: 10 },
        { kind: 'tool_call', tool: 'work', args: { task: task.id }, delayMs: 10 + (Number(task.id.slice(5)) % 5) * 10 },
        { kind: 'final_answer', answer: Number(task.id.slice(5)) % 4 === 0 ? 'nope' : 'done', tokens: 10, costUsd: 0.001, delayMs: 10 },
      ],
    }),
  }),
  evaluators: [matchesExpected()],
})
`

let project: TempProject
beforeAll(async () => {
  project = await createTempProject(
    { 'evals/crash.eval.ts': evalFile },
    { pluginOptions: '{ maxConcurrency: 8 }' },
  )
})
afterAll(async () => project?.remove())

/** The finished trials' records in the staging folders of a runs dir, by `task #trial`. */
async function stagedRecords(runsDir: string): Promise<Map<string, TrialRecord>> {
  const records = new Map<string, TrialRecord>()
  // Each worker appends its trials' records to its own log, a JSON line each; the last may be torn.
  for (const line of await stagedRecordLines(runsDir)) {
    const record = TrialRecord.parse(line)
    records.set(`${record.taskId} #${record.trial}`, record)
  }
  return records
}

async function killAfter(runsDir: string, finished: number): Promise<void> {
  const proc = new VitestProcess(['run', '--project', 'evals'], { cwd: project.root, runsDir })
  try {
    await pollUntil(
      async () => {
        if (proc.child.exitCode !== null)
          throw new Error(`vitest exited (${proc.child.exitCode}) before the kill:\n${tail(proc.output)}`)
        return (await stagedRecords(runsDir)).size >= finished ? true : undefined
      },
      {
        timeoutMs: 40_000,
        intervalMs: 5,
        describe: () => `${finished} finished trials\n${tail(proc.output)}`,
      },
    )
    proc.killGroup('SIGKILL')
    expect((await proc.exited).signal).toBe('SIGKILL')
  } finally {
    proc.killGroup('SIGKILL')
  }
}

/** Trials cut short across all seeds: the unfinished-trial path must have been taken at least once. */
let cutShort = 0

describe('SIGKILL, then agentevalops recover', { timeout: 120_000 }, () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`seed ${seed}: every trial with a record is recovered with identical scores`, async () => {
      const runsDir = join(project.runsDir, `seed-${seed}`)
      const at = 5 + Math.floor(seededRandom(seed)() * (TASKS * TRIALS - 20))
      await killAfter(runsDir, at)
      expect(await bundleDirs(runsDir)).toEqual([])
      const before = await stagedRecords(runsDir)
      expect(before.size).toBeGreaterThanOrEqual(at)

      if (seed === 1) {
        // A run started before recovering says what is left over and how to recover it.
        const next = await runVitest(['run', '--project', 'evals', '-t', 'task-00 #0'], {
          cwd: project.root,
          runsDir,
          timeoutMs: 40_000,
        })
        expect(next.output).toMatch(
          new RegExp(
            `holds ${before.size} finished trial\\(s\\) of run .*npx agentevalops recover .*\\.staging`,
          ),
        )
        expect(await bundleDirs(runsDir)).toHaveLength(1)
      }
      const existing = new Set(await bundleDirs(runsDir))

      const recovered = await runCli('recover', runsDir)
      expect(recovered.code, recovered.stderr).toBe(0)
      expect(recovered.stdout).toMatch(new RegExp(`recovered run .*: ${before.size} finished trial\\(s\\)`))
      const [dir, ...more] = (await bundleDirs(runsDir)).filter((d) => !existing.has(d))
      expect(more).toEqual([])
      expect(await validateBundle(dir!)).toEqual([])
      expect(await listDir(join(runsDir, '.staging'))).toEqual([])

      const scores = await readScores(dir!)
      const byKey = new Map(scores.trials.map((t) => [`${t.taskId} #${t.trial}`, t]))
      for (const [key, record] of before) {
        // scores.json keeps neither the run id nor the phase timing (which went into spans.jsonl).
        const { runId: _runId, timing, ...expected } = record
        expect(timing?.phases.map((p) => p.name)).toContain('agent')
        expect(byKey.get(key), key).toEqual(expected)
      }
      // Everything else in the bundle is a trial the kill cut short.
      const cut = scores.trials.filter((t) => !before.has(`${t.taskId} #${t.trial}`))
      expect(cut.every((t) => t.outcome === 'interrupted' && t.scores.length === 0)).toBe(true)
      cutShort += cut.length
      const metadata = JSON.parse(await readFile(join(dir!, 'metadata.json'), 'utf8')) as { status: string }
      expect(metadata.status).toBe('interrupted')
    })
  }

  it('recovered trials that the kill cut short, as interrupted, in some seed', () => {
    expect(cutShort).toBeGreaterThan(0)
  })
})
