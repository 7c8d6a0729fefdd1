#!/usr/bin/env node
// HumanEval benchmark: the oracle on all 164 problems through the whole pipeline (Vitest, plugin, engine, Python
// grading, bundle) at 8 in flight, against the floor: the same 164 check programs run back to back by one shell
// loop with the same interpreter. Prints the medians and the ratio pipeline / loop (target < 0.8; two cores make
// about 0.5 the best possible). Runs the built package (dist/): `npm run bench` builds it first.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { median, takeBundle, timedRun } from './shared.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const rounds = Number(process.env.AGENTEVALOPS_BENCH_ROUNDS ?? 3)
const dataset =
  process.env.AGENTEVALOPS_HUMANEVAL_PATH ??
  join(root, '..', 'shared', 'datasets', 'humaneval', 'HumanEval.jsonl.gz')
const vitestBin = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const work = join(root, 'bench', '.work')
const runsDir = join(work, 'humaneval-runs')
const programs = join(work, 'humaneval-programs')
const { readBundle } = await import(pathToFileURL(join(root, 'dist', 'src', 'index.js')).href)

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

const loops = []
const pipes = []
for (let i = 0; i < rounds; i++) {
  loops.push(await loop())
  pipes.push(await pipeline())
  const bundle = await takeBundle(runsDir, readBundle)
  const passed = bundle.scores.trials.filter((t) => t.passed).length
  if (passed !== problems.length) fail(`the oracle passed ${passed} of ${problems.length}`)
  console.log(
    `round ${i + 1}/${rounds}: shell loop ${loops[i].toFixed(0)} ms · pipeline ${pipes[i].toFixed(0)} ms · ` +
      `oracle ${passed}/${problems.length}`,
  )
}
rmSync(work, { recursive: true, force: true })

const l = median(loops)
const p = median(pipes)
console.log(`\nhumaneval benchmark: ${problems.length} problems, oracle, 8 in flight, ${rounds} rounds`)
console.log(
  `wall time  median: shell loop ${l.toFixed(0)} ms, pipeline ${p.toFixed(0)} ms, ratio ${(p / l).toFixed(3)} (target < 0.8)`,
)
