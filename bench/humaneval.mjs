#!/usr/bin/env node
// HumanEval benchmark: the oracle on all 164 problems through the whole pipeline (Vitest, plugin, engine, Python
// grading, bundle) at 8 in flight, against the floor: the same 164 check programs run back to back by one shell
// loop with the same interpreter. Prints the medians and the ratio pipeline / loop (target < 0.8; two cores make
// about 0.5 the best possible). Each round also times the pipeline's parts on their own, in the same run: Vitest
// alone (164 no-op concurrent cases), the checks alone (the grader's executeCheck at 8 in flight), and the harness
// alone (the same trials with grading stubbed out). The pipeline cannot start a check before Vitest has collected
// the file, nor end before the last check, so Vitest's and the checks' sum over the loop is about the best ratio it
// can reach on this machine; the harness's time beyond Vitest's is what agentevalops adds. Runs the built package
// (dist/): `npm run bench` builds it first.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { median, takeBundle, timedRun } from './shared.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const rounds = Number(process.env.AGENTEVALOPS_BENCH_ROUNDS ?? 3)
const dataset =
  process.env.AGENTEVALOPS_HUMANEVAL_PATH ?? join(root, 'datasets', 'humaneval', 'HumanEval.jsonl.gz')
const vitestBin = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const work = join(root, 'bench', '.work')
const runsDir = join(work, 'humaneval-runs')
const programs = join(work, 'humaneval-programs')
const distIndex = pathToFileURL(join(root, 'dist', 'src', 'index.js')).href
const { readBundle } = await import(distIndex)

function fail(message) {
  console.error(`humaneval bench: ${message}`)
  process.exit(1)
}

// The interpreter itself, not a version manager's shim, as the grader resolves it.
const python = spawnSync('python3', ['-I', '-S', '-c', 'import sys; print(sys.executable)'], {
  encoding: 'utf8',
}).stdout?.trim()
if (!python) fail('python3 is needed')

rmSync(work, { recursive: true, force: true })
mkdirSync(programs, { recursive: true })
const problems = gunzipSync(readFileSync(dataset))
  .toString('utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l))
problems.forEach((p, i) => {
  const program = `${p.prompt}${p.canonical_solution}\n${p.test}\ncheck(${p.entry_point})\n`
  writeFileSync(join(programs, `p${String(i).padStart(3, '0')}.py`), program)
})

const timed = (argv, env) => timedRun(argv, { cwd: root, env })
const loop = () =>
  timed(
    ['bash', '-c', `for f in "${programs}"/p*.py; do "${python}" -I -S "$f" > /dev/null || exit 1; done`],
    {
      PATH: process.env.PATH,
    },
  )
const pipeline = () =>
  timed([process.execPath, vitestBin, 'run', '--config', 'bench/fixtures/humaneval.config.ts'], {
    ...process.env,
    CI: 'true',
    AGENTEVALOPS_HUMANEVAL_PATH: dataset,
  })

const vitestAlone = () =>
  timed([process.execPath, vitestBin, 'run', '--config', 'bench/fixtures/humaneval-vitest-only.config.ts'], {
    ...process.env,
    CI: 'true',
  })
const harnessAlone = () =>
  timed([process.execPath, vitestBin, 'run', '--config', 'bench/fixtures/humaneval-harness.config.ts'], {
    ...process.env,
    CI: 'true',
    AGENTEVALOPS_HUMANEVAL_PATH: dataset,
  })
const checksAlone = () => {
  const run = spawnSync(
    process.execPath,
    [join(root, 'bench', 'humaneval-checks.mjs'), distIndex, programs],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 600_000,
    },
  )
  if (run.status !== 0) fail(`the checks alone failed:\n${run.stdout}${run.stderr}`)
  return JSON.parse(run.stdout).ms
}

const loops = []
const pipes = []
const vitests = []
const checks = []
const harnesses = []
for (let i = 0; i < rounds; i++) {
  loops.push(await loop())
  pipes.push(await pipeline())
  vitests.push(await vitestAlone())
  checks.push(checksAlone())
  harnesses.push(await harnessAlone())
  const bundle = await takeBundle(runsDir, readBundle)
  const passed = bundle.scores.trials.filter((t) => t.passed).length
  if (passed !== problems.length) fail(`the oracle passed ${passed} of ${problems.length}`)
  console.log(
    `round ${i + 1}/${rounds}: shell loop ${loops[i].toFixed(0)} ms · pipeline ${pipes[i].toFixed(0)} ms · ` +
      `oracle ${passed}/${problems.length} · Vitest alone ${vitests[i].toFixed(0)} ms · checks alone ` +
      `${checks[i].toFixed(0)} ms · harness alone ${harnesses[i].toFixed(0)} ms`,
  )
}
rmSync(work, { recursive: true, force: true })

const l = median(loops)
const p = median(pipes)
const v = median(vitests)
const c = median(checks)
const h = median(harnesses)
console.log(`\nhumaneval benchmark: ${problems.length} problems, oracle, 8 in flight, ${rounds} rounds`)
console.log(
  `wall time  median: shell loop ${l.toFixed(0)} ms, pipeline ${p.toFixed(0)} ms, ratio ${(p / l).toFixed(3)} (target < 0.8)`,
)
console.log(
  `its parts median: Vitest alone ${v.toFixed(0)} ms (${(v / l).toFixed(3)}), checks alone ${c.toFixed(0)} ms ` +
    `(${(c / l).toFixed(3)}); their sum, about the best this machine allows: ${((v + c) / l).toFixed(3)}`,
)
console.log(
  `pipeline over the floor (Vitest alone + checks alone): ${(p / (v + c)).toFixed(3)} (target ≤ 1.10: ` +
    `what agentevalops adds beyond the floor at most a tenth)`,
)
console.log(
  `harness alone (grading stubbed) median: ${h.toFixed(0)} ms (${(h / l).toFixed(3)}), of which beyond Vitest's: ` +
    `${(h - v).toFixed(0)} ms (${((h - v) / l).toFixed(3)})`,
)
