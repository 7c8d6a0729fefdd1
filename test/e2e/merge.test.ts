// Acceptance of `agentevalops merge` on real runs: one benchmark config run as 4 shards (`agentevalops run
// cfg.yaml --shard i/4`, child processes) and merged is the bundle of one process running the same work — the same
// trials, outcomes, scores, traces and summary statistics, timing fields aside. Which shard holds which task is the
// partition's business: only the sets are compared. The merged bundle validates and `agentevalops replay` replays it.
import { chmod, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import pLimit from 'p-limit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runGroupOf } from '../../src/bundles/merge/input-checks.ts'
import type { RunMetadata, ScoresFile, TraceEvent } from '../../src/core/index.ts'
import {
  buildCli,
  bundleDirs,
  readBundleEvents,
  readMetadata,
  readScores,
  REPO_ROOT,
  runCli,
  tail,
  tempDir,
  validateWithCli,
  type BuiltCli,
  type TempDir,
  type VitestResult,
} from './helpers.ts'

const CONFIG = 'configs/toy_mixed.yaml'
const SHARDS = 4

let cli: BuiltCli
let temp: TempDir
let whole: string
let shards: string[]
let merged: string
let mergeRun: VitestResult

/** Wall-clock figures, which two runs of the same work never share. */
const TIMING_KEYS = new Set(['wallSeconds', 'latencyMs', 'durationSec', 'startedAt', 'finishedAt', 'ts'])

function withoutTiming(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTiming)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !TIMING_KEYS.has(key))
      .map(([key, v]) => [key, withoutTiming(v)]),
  )
}

const trialId = (t: { benchmark: { id: string }; taskId: string; trial: number }) =>
  `${t.benchmark.id}/${t.taskId}#${t.trial}`

/** What must be equal event for event: everything but the run id, its span id and the time. */
function eventFacts(events: readonly TraceEvent[]) {
  return events.map(({ runId: _runId, spanId: _spanId, ...e }) => withoutTiming(e))
}

beforeAll(async () => {
  cli = await buildCli()
  temp = await tempDir('aeo-merge-e2e-')
  const wholeDir = join(temp.path, 'whole')
  const shardsDir = join(temp.path, 'shards')
  // Two children at a time on a shared 2-core machine: the toy config has 3 s wall-time limits.
  const limit = pLimit(2)
  const run = (args: string[], runsDir: string) =>
    limit(() => runCli(cli, ['run', CONFIG, ...args], { runsDir, timeoutMs: 90_000 }))
  const results = await Promise.all([
    run([], wholeDir),
    ...Array.from({ length: SHARDS }, (_, i) => run(['--shard', `${i + 1}/${SHARDS}`], shardsDir)),
  ])
  // The config's gate is on the aggregate pass rate, which the whole run reaches. A shard's rate is that of the tasks
  // it drew: it does not judge the gate (the merge does), so a shard that drew mostly failing tasks passes all the same.
  const [wholeRun, ...shardRuns] = results
  expect(wholeRun.code, tail(wholeRun.output)).toBe(0)
  for (const result of shardRuns) expect(result.code, tail(result.output)).toBe(0)
  ;[whole] = (await bundleDirs(wholeDir)) as [string]
  shards = await bundleDirs(shardsDir)
  expect(shards).toHaveLength(SHARDS)
  for (const shard of shards) {
    const validated = await validateWithCli(shard)
    expect(validated.code, validated.stdout).toBe(0)
  }

  const mergedDir = join(temp.path, 'merged')
  mergeRun = await runCli(cli, ['merge', shardsDir, '--output', mergedDir], { runsDir: mergedDir })
  ;[merged] = (await bundleDirs(mergedDir)) as [string]
}, 240_000)

afterAll(async () => {
  await cli?.remove()
  await temp?.remove()
}, 30_000)

describe(`${SHARDS} shards of ${CONFIG} + agentevalops merge`, { timeout: 120_000 }, () => {
  it('are the bundle of one process running the same work', async () => {
    expect(mergeRun.code, tail(mergeRun.output)).toBe(0)
    expect(mergeRun.stdout).toMatch(new RegExp(`^merged ${SHARDS} bundle\\(s\\), 45 trial\\(s\\) → `))
    // …and the merge judges the gate on the whole run, as the one process's gate case did.
    const gates = (await readMetadata(whole)).gates ?? []
    expect(gates.map((g) => g.benchmark)).toEqual(['toy'])
    const { trials } = await readScores(whole)
    const rate = trials.filter((t) => t.passed).length / trials.length
    expect(mergeRun.stdout).toContain(
      `agentevalops merge: gate toy: pass rate ${rate.toFixed(3)} over 45 trials reaches ${gates[0]!.minPassRate}`,
    )
    const validated = await validateWithCli(merged)
    expect(validated.code, `${validated.stdout}\n${validated.stderr}`).toBe(0)

    const [one, all] = await Promise.all([readScores(whole), readScores(merged)])
    const parts: ScoresFile[] = await Promise.all(shards.map(readScores))
    // The shards split the work: every trial of the run in exactly one of them, whichever that is.
    const ids = (s: ScoresFile) => s.trials.map(trialId)
    expect(parts.flatMap(ids).sort()).toEqual(ids(one).sort())
    expect(new Set(parts.flatMap(ids)).size).toBe(one.trials.length)
    expect(parts.every((p) => p.trials.length > 0 && p.trials.length < one.trials.length)).toBe(true)

    expect(one.trials).toHaveLength(45)
    expect(withoutTiming(all.trials)).toEqual(withoutTiming(one.trials))
    expect(withoutTiming(all.summary)).toEqual(withoutTiming(one.summary))
    expect(all.summary.headline).toEqual(one.summary.headline)

    const [eventsOne, eventsAll] = await Promise.all([readBundleEvents(whole), readBundleEvents(merged)])
    expect(eventFacts(eventsAll)).toEqual(eventFacts(eventsOne))
  })

  it('carry the metadata of a complete run, naming its shards in shard order', async () => {
    const [one, all] = await Promise.all([readMetadata(whole), readMetadata(merged)])
    const parts: RunMetadata[] = await Promise.all(shards.map(readMetadata))
    for (const part of parts)
      expect(part).toMatchObject({ status: 'partial-shard', shard: { count: SHARDS } })
    const inOrder = [...parts].sort((a, b) => a.shard!.index - b.shard!.index)
    expect(all).toMatchObject({
      status: 'complete',
      shard: null,
      mergedFrom: inOrder.map((p) => p.runId),
      configHash: one.configHash,
      trialCount: one.trialCount,
      benchmarks: one.benchmarks,
      targets: one.targets,
      labels: one.labels,
      registeredTrials: one.registeredTrials,
      resumedFrom: [],
    })
    // The run group the shards share (each shard derives it from the config hash and the run key).
    expect(new Set(parts.map(runGroupOf)).size).toBe(1)
    expect(runGroupOf(all)).toBe(runGroupOf(parts[0]!))
  })

  it('leaving a shard out is refused by the CLI process: exit 2, the missing shard named, nothing written', async () => {
    const parts: RunMetadata[] = await Promise.all(shards.map(readMetadata))
    const left = parts.findIndex((p) => p.shard!.index === 2)
    const given = shards.filter((_, i) => i !== left)
    const out = join(temp.path, 'refused')
    const result = await runCli(cli, ['merge', ...given, '--output', out], { runsDir: out })
    expect(result.code, tail(result.output)).toBe(2)
    expect(result.stderr.split('\n')).toContain(
      `agentevalops merge: refused: shard 2/${SHARDS} is missing: give its bundle too (all ${SHARDS} shards of the run are needed)`,
    )
    expect(await bundleDirs(out)).toEqual([])
  })

  it('can be replayed: its replay command runs the whole work, and every trial MATCHes', async () => {
    // `npx agentevalops …` of the replay command, stood in for by the CLI built from source.
    const bin = join(temp.path, 'bin')
    await mkdir(bin)
    await writeFile(join(bin, 'npx'), '#!/bin/sh\nexec "$@"\n')
    await writeFile(join(bin, 'agentevalops'), '#!/bin/sh\nexec "$AEO_NODE" "$AEO_CLI" "$@"\n')
    await Promise.all([chmod(join(bin, 'npx'), 0o755), chmod(join(bin, 'agentevalops'), 0o755)])
    const replay = await runCli(cli, ['replay', merged, '--cwd', REPO_ROOT], {
      runsDir: join(temp.path, 'unused'),
      env: { PATH: `${bin}:${process.env.PATH}`, AEO_NODE: process.execPath, AEO_CLI: cli.entry },
      timeoutMs: 90_000,
    })
    expect(replay.code, tail(replay.output)).toBe(0)
    expect(replay.stdout.trimEnd().split('\n').at(-1)).toBe('replay: 45 MATCH, 0 DIFFER, 0 CODE_CHANGED')
  })
})
