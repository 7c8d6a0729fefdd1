#!/usr/bin/env node
// Replay benchmark: a 20-task Anthropic-runner run against the fake Messages API (each reply taking a tool-use
// model's typical latency, 3 s by default: AGENTEVALOPS_BENCH_MODEL_LATENCY_MS) is recorded, then replayed from its recordings with no server. Prints the wall time of both, the ratio
// replay / recorded (target < 0.10), and checks that the replay's traces and scores are the recorded ones.
// Runs the built package (dist/): `npm run bench` builds it first.
import { rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { median, takeBundle, timedRun } from './shared.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const rounds = Number(process.env.AGENTEVALOPS_BENCH_ROUNDS ?? 3)
const vitestBin = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const work = join(root, 'bench', '.work')
const runsDir = join(work, 'replay-runs')
const { readBundle, compareRuns } = await import(pathToFileURL(join(root, 'dist', 'src', 'index.js')).href)

function fail(message) {
  console.error(`replay bench: ${message}`)
  process.exit(1)
}

function runOnce(mode, env = {}) {
  return timedRun([process.execPath, vitestBin, 'run', '--config', 'bench/fixtures/replay.config.ts'], {
    cwd: root,
    // CI=true keeps Vitest's output plain; the mode is explicit, so CI does not change what is recorded.
    env: { ...process.env, CI: 'true', AGENTEVALOPS_RECORD: mode, ...env },
    timeoutMs: 300_000,
  })
}

rmSync(work, { recursive: true, force: true })
const recorded = []
const replayed = []
for (let i = 0; i < rounds; i++) {
  rmSync(join(work, 'recordings'), { recursive: true, force: true })
  recorded.push(await runOnce('record'))
  const original = await takeBundle(runsDir, readBundle)
  replayed.push(await runOnce('replay'))
  const replay = await takeBundle(runsDir, readBundle)
  const side = (b) => ({ trials: b.scores.trials, events: b.events, gitSha: b.metadata.git.sha })
  const differing = compareRuns(side(original), side(replay)).filter((c) => c.verdict !== 'MATCH')
  if (differing.length > 0) fail(`the replay differs: ${JSON.stringify(differing.slice(0, 3))}`)
  const scores = (b) =>
    JSON.stringify(b.scores.trials.map((t) => [t.taskId, t.outcome, t.scores.map((s) => s.score)]))
  if (scores(original) !== scores(replay)) fail('the replay scored differently')
  console.log(
    `round ${i + 1}/${rounds}: recorded ${recorded[i].toFixed(0)} ms · replayed ${replayed[i].toFixed(0)} ms · ` +
      `${original.scores.trials.length} trials, traces and scores identical`,
  )
}
rmSync(work, { recursive: true, force: true })

const rec = median(recorded)
const rep = median(replayed)
console.log(
  `\nreplay benchmark: 20 tasks × 2 model calls, ${process.env.AGENTEVALOPS_BENCH_MODEL_LATENCY_MS ?? 3000} ms model ` +
    `latency, 5 in flight, ${rounds} rounds`,
)
console.log(
  `wall time  median: recorded ${rec.toFixed(0)} ms, replayed ${rep.toFixed(0)} ms, ratio ${(rep / rec).toFixed(3)} (target < 0.10)`,
)
