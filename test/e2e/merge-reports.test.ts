// Vitest's own merge beside ours: two shards run with `--reporter=blob` (each on its "machine": a runs folder of its
// own), their bundles are brought to the merge job as CI artifacts are (one folder per artifact), and
// `vitest --merge-reports` with JUnit makes the merged bundle, a JUnit report and a job summary with every shard's
// trials. Without every shard's bundle it writes none and says, in one line, which command makes it.
//
// Two eval files and two shards: a file shard would give each shard one file; the task-level shard gives each some
// tasks of both, so both blob reports hold a copy of each file (folded into one before Vitest replays them). The
// test asserts only what holds either way: every trial in exactly one shard, and once in the merged outputs.
import { cp, mkdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  bundleDirs,
  createTempProject,
  readMetadata,
  readScores,
  runVitest,
  sayYesSuiteEval,
  tail,
  validateWithCli,
  type TempProject,
  type VitestResult,
} from './helpers.ts'
import type { RunMetadata, ScoresFile } from '../../src/core/index.ts'

const TASKS = ['t1', 't2', 't3']
// t3 is answered wrong: the figures are not all 100%. The aggregate gate at 0 keeps every case green, so the exit
// status says only what our reporter does to it.
const evalFile = (benchmark: string) =>
  sayYesSuiteEval({ benchmark, taskIds: TASKS, wrong: (i) => i === 2, trials: 2 })

interface Shard {
  dir: string
  metadata: RunMetadata
  scores: ScoresFile
  result: VitestResult
}

interface Merge {
  result: VitestResult
  runsDir: string
  junit: string
  stepSummary: string
}

let project: TempProject
let shards: Shard[]
let merged: Merge
let missing: Merge

const trialKeys = (scores: ScoresFile) =>
  scores.trials.map((t) => `${t.benchmark.id} > ${t.taskId} #${t.trial} ${t.outcome}`).sort()

/** `vitest --merge-reports` of the blobs, with the given shard bundles downloaded into its runs folder. */
async function mergeJob(name: string, bundles: readonly Shard[]): Promise<Merge> {
  const runsDir = join(project.runsDir, name)
  // As actions/download-artifact leaves them without merge-multiple: one folder per artifact.
  for (const [i, shard] of bundles.entries()) {
    const into = join(runsDir, `bundle-shard-${shard.metadata.shard?.index ?? i}`)
    await mkdir(into, { recursive: true })
    await cp(shard.dir, join(into, shard.metadata.runId), { recursive: true })
  }
  const junit = join(project.runsDir, `${name}-junit.xml`)
  const stepSummary = join(project.runsDir, `${name}-step-summary.md`)
  const result = await runVitest(
    ['--merge-reports=blobs', '--reporter=default', '--reporter=junit', `--outputFile.junit=${junit}`],
    {
      cwd: project.root,
      runsDir,
      env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary },
      timeoutMs: 90_000,
    },
  )
  return {
    result,
    runsDir,
    junit: await readFile(junit, 'utf8').catch(() => ''),
    stepSummary: await readFile(stepSummary, 'utf8').catch(() => ''),
  }
}

beforeAll(async () => {
  project = await createTempProject({
    'evals/alpha.eval.ts': evalFile('alpha'),
    'evals/beta.eval.ts': evalFile('beta'),
  })
  shards = []
  for (const index of [1, 2]) {
    const runsDir = join(project.runsDir, `shard-${index}`)
    const result = await runVitest(
      [
        'run',
        '--project',
        'evals',
        `--shard=${index}/2`,
        '--reporter=blob',
        `--outputFile.blob=blobs/blob-${index}-2.json`,
      ],
      { cwd: project.root, runsDir, timeoutMs: 90_000 },
    )
    const dirs = await bundleDirs(runsDir)
    if (dirs.length !== 1) throw new Error(`shard ${index}: ${dirs.length} bundles\n${tail(result.output)}`)
    shards.push({
      dir: dirs[0]!,
      metadata: await readMetadata(dirs[0]!),
      scores: await readScores(dirs[0]!),
      result,
    })
  }
  merged = await mergeJob('merge', shards)
  missing = await mergeJob('merge-missing', shards.slice(0, 1))
}, 360_000)

afterAll(async () => {
  await project?.remove()
}, 30_000)

describe('vitest --merge-reports after blob shards', { timeout: 60_000 }, () => {
  it('starts from two partial-shard bundles that hold every trial between them, once', () => {
    for (const shard of shards) {
      expect(shard.result.code, tail(shard.result.output)).toBe(0)
      expect(shard.metadata.status).toBe('partial-shard')
    }
    expect(shards.map((s) => s.metadata.shard?.index)).toEqual([1, 2])
    const all = shards.flatMap((s) => trialKeys(s.scores))
    expect(all).toHaveLength(12)
    expect(new Set(all).size).toBe(12)
  })

  it('writes a merged bundle of every shard that validates, and says where it is', async () => {
    const { result, runsDir } = merged
    expect(result.code, tail(result.output)).toBe(0)
    // The shards' bundles stay where they were downloaded; the merged one lands in the runs folder.
    const dirs = await bundleDirs(runsDir)
    const bundle = dirs.find((d) => !relative(runsDir, d).startsWith('bundle-shard-'))
    expect(bundle, `${dirs.join(', ')}\n${tail(result.output)}`).toBeDefined()
    expect(dirs).toHaveLength(3)
    const validation = await validateWithCli(bundle!)
    expect(validation.code, `${validation.stdout}\n${validation.stderr}`).toBe(0)
    const metadata = await readMetadata(bundle!)
    expect(metadata.status).toBe('complete')
    expect(metadata.shard).toBeNull()
    const scores = await readScores(bundle!)
    expect(trialKeys(scores)).toEqual(shards.flatMap((s) => trialKeys(s.scores)).sort())
    expect(scores.summary?.n).toBe(12)
    expect(scores.summary?.passed).toBe(8)
    expect(result.stdout).toContain(`bundle ${relative(project.root, bundle!)}`)
    expect(result.stdout).toMatch(/^agentevalops: 8\/12 trials passed \(66\.7%\) · bundle /m)
  })

  it("gives JUnit every shard's trial cases", () => {
    for (const benchmark of ['alpha', 'beta'])
      for (const task of TASKS)
        for (const trial of [0, 1])
          expect(merged.junit, `${benchmark} > ${task} #${trial}`).toContain(
            `name="${benchmark} &gt; ${task} #${trial}"`,
          )
    // Each trial once; the rest are the benchmarks' gate cases, one per benchmark in every shard that ran it.
    const names = [...merged.junit.matchAll(/<testcase [^>]*?\sname="([^"]*)"/g)].map((m) => m[1]!)
    expect(names.filter((n) => / #\d+$/.test(n))).toHaveLength(12)
    expect(new Set(names.filter((n) => / #\d+$/.test(n))).size).toBe(12)
    for (const n of names.filter((n) => !/ #\d+$/.test(n))) expect(n).toMatch(/^(alpha|beta) &gt; gate: /)
  })

  it("writes the merged bundle's figures to the job summary", async () => {
    const bundle = (await bundleDirs(merged.runsDir)).find(
      (d) => !relative(merged.runsDir, d).startsWith('bundle-shard-'),
    )!
    const metadata = await readMetadata(bundle)
    const ours = merged.stepSummary.slice(merged.stepSummary.indexOf('## agentevalops run '))
    expect(ours, merged.stepSummary).toContain(`## agentevalops run ${metadata.runId}`)
    expect(ours).toContain('8/12 trials passed')
    expect(ours).not.toContain('Partial run')
    expect(ours).toContain(`Bundle: ${relative(project.root, bundle)}`)
  })

  it('writes no bundle when a shard’s bundle is missing, and names the command that makes it in one line', async () => {
    const { result, runsDir } = missing
    // Not turned into a failure by us: every case passed.
    expect(result.code, tail(result.output)).toBe(0)
    expect(await bundleDirs(runsDir)).toHaveLength(1)
    const ours = result.output.split('\n').filter((l) => l.startsWith('agentevalops:'))
    expect(ours, tail(result.output)).toHaveLength(1)
    const line = ours[0]!
    const present = relative(project.root, join(runsDir, 'bundle-shard-1', shards[0]!.metadata.runId))
    const absent = relative(project.root, join(runsDir, shards[1]!.metadata.runId))
    expect(line).toContain(`shard 2/2`)
    expect(line).toContain(shards[1]!.metadata.runId)
    expect(line).toContain(`npx agentevalops merge ${present} ${absent}`)
    expect(missing.stepSummary).toContain(shards[1]!.metadata.runId)
    expect(missing.stepSummary).toContain('npx agentevalops merge')
  })
})
