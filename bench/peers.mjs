#!/usr/bin/env node
// The peer comparison: the same work (N tasks, each a scripted agent answering after 20 ms, concurrency 50, one
// exact-match score) through plain Vitest, agentevalops, vitest-evals and evalite, alternating in one invocation,
// each a cold run measured over its whole process tree. The peers live in bench/peers/ with their own lockfile
// and are installed here (npm ci) when their node_modules does not match it; they are no dependency of the package.
//
//   AGENTEVALOPS_BENCH_SIZES   comma list, default "20,1000,10000"
//   AGENTEVALOPS_BENCH_ROUNDS  rounds at every size, default 5
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { measuredRun, summarize } from './shared.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const peers = join(root, 'bench', 'peers')
const rootVitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const peerVitest = join(peers, 'node_modules', 'vitest', 'vitest.mjs')

const sizes = (process.env.AGENTEVALOPS_BENCH_SIZES ?? '20,1000,10000').split(',').map((s) => {
  if (!/^\s*\d+\s*$/.test(s)) throw new Error(`AGENTEVALOPS_BENCH_SIZES: "${s}" is not a number of trials`)
  return Number(s)
})
const rounds = Number(process.env.AGENTEVALOPS_BENCH_ROUNDS ?? 5)

const SIDES = [
  { name: 'plain', cwd: root, argv: [rootVitest, 'run', '--config', 'bench/fixtures/plain.config.ts'] },
  {
    name: 'agentevalops',
    cwd: root,
    argv: [rootVitest, 'run', '--config', 'bench/fixtures/pipeline.config.ts'],
  },
  {
    name: 'vitest-evals',
    cwd: peers,
    argv: [peerVitest, 'run', '--config', 'vitest-evals/vitest.config.ts'],
  },
  {
    name: 'evalite',
    cwd: join(peers, 'evalite'),
    argv: [join(peers, 'node_modules', 'evalite', 'dist', 'bin.js'), 'run'],
    // each run starts from an empty store, as the other tools do
    before: () => rmSync(join(peers, 'evalite', 'node_modules'), { recursive: true, force: true }),
  },
]

/** bench/peers/node_modules holds exactly what its lockfile pins (npm's hidden lockfile lists what is installed). */
function peersInstalled() {
  const hidden = join(peers, 'node_modules', '.package-lock.json')
  if (!existsSync(hidden)) return false
  const want = JSON.parse(readFileSync(join(peers, 'package-lock.json'), 'utf8')).packages
  const have = JSON.parse(readFileSync(hidden, 'utf8')).packages
  // optional packages for other platforms are in the lockfile but never installed here
  return Object.entries(want).every(
    ([path, p]) => path === '' || have[path]?.version === p.version || (p.optional && !have[path]),
  )
}

function run(cmd, args, cwd, stdout = 'inherit') {
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', stdout, 'inherit'] })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`)
}

if (!peersInstalled()) {
  console.log('installing the peers into bench/peers (npm ci)…')
  run('npm', ['ci', '--no-audit', '--no-fund'], peers)
}
// The agentevalops side runs the built package (dist/), so build it from the current sources first.
run(process.execPath, [join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js')], root, 'ignore')
const versionOf = (pkg) =>
  JSON.parse(readFileSync(join(peers, 'node_modules', pkg, 'package.json'), 'utf8')).version
const versions = { 'vitest-evals': versionOf('vitest-evals'), evalite: versionOf('evalite') }

async function once(side, n) {
  side.before?.()
  const env = { ...process.env, CI: 'true', AGENTEVALOPS_BENCH_TASKS: String(n) }
  const r = await measuredRun([process.execPath, ...side.argv], {
    cwd: side.cwd,
    env,
    timeoutMs: 300_000 + n * 10,
  })
  rmSync(join(root, 'bench', '.work'), { recursive: true, force: true })
  return r
}

// One unmeasured run of each fills Vite's transform caches and the page cache, so round 1 is not an outlier.
for (const side of SIDES) await once(side, 20)

const summary = []
for (const n of sizes) {
  const results = Object.fromEntries(SIDES.map((s) => [s.name, []]))
  for (let i = 0; i < rounds; i++) {
    for (const side of SIDES) results[side.name].push(await once(side, n))
    console.log(
      `  ${n} round ${i + 1}/${rounds}: ` +
        SIDES.map((s) => {
          const r = results[s.name][i]
          return `${s.name} ${r.wallMs.toFixed(0)} ms ${r.cpuMs.toFixed(0)} cpu ${r.peakMb.toFixed(0)} MiB`
        }).join(' · '),
    )
  }
  // pair by pair: the peers' rounds against ours, for who is ahead
  const vsOurs = summarize(results, 'agentevalops')
  summary.push({ n, ...summarize(results, 'plain'), vsOurs })
}

// Paste-ready, one table like the issue's: each tool's medians, then its ratio against plain Vitest in this run.
const cell = (s) =>
  `${s.wallMs.toFixed(0)} ms (${s.ratio.wallMs.toFixed(2)}×) · ${s.cpuMs.toFixed(0)} ms cpu ` +
  `(${s.ratio.cpuMs.toFixed(2)}×) · ${s.peakMb.toFixed(0)} MiB (${s.ratio.peakMb.toFixed(2)}×)`
const names = SIDES.map((s) => (versions[s.name] ? `${s.name} ${versions[s.name]}` : s.name))
console.log(
  `\npeer benchmark (${new Date().toISOString()}): N scripted tasks, 20 ms latency, concurrency 50, one exact-match ` +
    `score, cold runs, medians of ${rounds}; each cell: wall · cpu · peak RSS (tree), each with its ratio vs plain Vitest (median of the pair-by-pair ratios)`,
)
console.log(`| N | ${names.join(' | ')} |`)
console.log(`|---|${names.map(() => '---|').join('')}`)
for (const r of summary) {
  const p = r.plain
  const cells = SIDES.map((s) =>
    s.name === 'plain'
      ? `${p.wallMs.toFixed(0)} ms · ${p.cpuMs.toFixed(0)} ms cpu · ${p.peakMb.toFixed(0)} MiB`
      : cell(r[s.name]),
  )
  console.log(`| ${r.n.toLocaleString('en-US')} | ${cells.join(' | ')} |`)
}
for (const r of summary) {
  const ahead = SIDES.filter((s) => s.name !== 'plain' && s.name !== 'agentevalops').map(
    (s) => `${s.name} ${r.vsOurs[s.name].ratio.wallMs.toFixed(2)}×`,
  )
  console.log(
    `N = ${r.n.toLocaleString('en-US')}: peers' wall over agentevalops' (> 1 = we are ahead): ${ahead.join(', ')}`,
  )
}
