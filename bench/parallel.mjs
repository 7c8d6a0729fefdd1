#!/usr/bin/env node
// `agentevalops run configs/humaneval_oracle.yaml --parallel 2` against `--parallel 1`, in the same run: the 164
// HumanEval problems (CPU-bound Python grading) as 2 shard processes on this machine, merged, against 1 shard process,
// merged. Prints the medians over AGENTEVALOPS_BENCH_ROUNDS rounds (default 3) and the ratio parallel 2 / parallel 1
// (round by round, then the median), and checks that both merged bundles hold the same trials, outcomes and scores.
// Runs the built package (dist/): `npm run bench` builds it first.
import { mkdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { median, takeBundle, timedRun } from './shared.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const rounds = Number(process.env.AGENTEVALOPS_BENCH_ROUNDS ?? 3)
const cli = join(root, 'dist', 'src', 'cli', 'index.js')
const config = join(root, 'configs', 'humaneval_oracle.yaml')
const work = join(root, 'bench', '.work', 'parallel')
const { readBundle } = await import(pathToFileURL(join(root, 'dist', 'src', 'index.js')).href)
const PROBLEMS = 164

function fail(message) {
  console.error(`parallel bench: ${message}`)
  process.exit(1)
}

/** What must not depend on the number of shards: per trial its outcome and scores, and the run's statistics. */
function results(bundle) {
  const trials = [...bundle.scores.trials]
    .sort((a, b) => a.taskId.localeCompare(b.taskId) || a.trial - b.trial)
    .map((t) => ({
      task: t.taskId,
      trial: t.trial,
      outcome: t.outcome,
      passed: t.passed,
      scores: t.scores.map((s) => [s.evaluatorId, s.score, s.passed]),
    }))
  const { n, passed, passRate, overall, outcomes, evaluators } = bundle.scores.summary
  return JSON.stringify({ trials, n, passed, passRate, overall, outcomes, evaluators })
}

async function parallelRun(count) {
  const runsDir = join(work, `runs-${count}`)
  mkdirSync(runsDir, { recursive: true })
  const env = { ...process.env, CI: 'true', AGENTEVALOPS_PROGRESS: '0' }
  const wallMs = await timedRun(
    [process.execPath, cli, 'run', config, '--parallel', String(count), '--output', runsDir],
    { cwd: root, env },
  )
  const bundle = await takeBundle(runsDir, readBundle)
  if (bundle.metadata.status !== 'complete') fail(`--parallel ${count}: status ${bundle.metadata.status}`)
  const passed = bundle.scores.trials.filter((t) => t.passed).length
  if (passed !== PROBLEMS) fail(`--parallel ${count}: the oracle passed ${passed} of ${PROBLEMS}`)
  return { wallMs, results: results(bundle) }
}

rmSync(work, { recursive: true, force: true })
const ones = []
const twos = []
for (let i = 0; i < rounds; i++) {
  const one = await parallelRun(1)
  const two = await parallelRun(2)
  if (two.results !== one.results)
    fail(`round ${i + 1}: the --parallel 2 bundle differs from the --parallel 1 one`)
  ones.push(one.wallMs)
  twos.push(two.wallMs)
  console.log(
    `round ${i + 1}/${rounds}: --parallel 1 ${one.wallMs.toFixed(0)} ms · --parallel 2 ${two.wallMs.toFixed(0)} ms · ` +
      `same bundle either way (${PROBLEMS}/${PROBLEMS} passed)`,
  )
}
rmSync(work, { recursive: true, force: true })

const one = median(ones)
const two = median(twos)
const ratio = median(twos.map((t, i) => t / ones[i]))
console.log(`\nparallel benchmark: humaneval_oracle, ${PROBLEMS} problems, ${rounds} rounds`)
console.log(
  `wall time median: --parallel 1 ${one.toFixed(0)} ms, --parallel 2 ${two.toFixed(0)} ms, ` +
    `ratio ${ratio.toFixed(3)} (parallel 2 / parallel 1, round by round; two cores make about 0.5 the best possible)`,
)
