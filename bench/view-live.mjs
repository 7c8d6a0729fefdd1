// `agentevalops view` following a run as it goes: a real `vitest run` of the pipeline bench's scripted tasks into a
// runs folder that `view` serves, read through its events stream (/api/events). Per round: how long after the first
// trial's record reached the worker's log the stream said so (a run-progress with trials > 0), and how long after the
// bundle was sealed it said the run ended. The baseline, in the same rounds: a reader polling the staging logs every
// 5 ms, the floor for anything that learns of a trial from the files. Medians of AGENTEVALOPS_BENCH_REPEATS (default
// 5). Uses dist/ (run `npm run build` first).
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { get } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median } from './shared.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const REPEATS = Number(process.env.AGENTEVALOPS_BENCH_REPEATS || 5)
const TASKS = 200
const POLL_MS = 5
const vitestBin = join(root, 'node_modules', 'vitest', 'vitest.mjs')

/** `agentevalops view` on `runsDir`: resolves with its port and a way to stop it. */
function startView(runsDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(root, 'bin', 'agentevalops.js'), 'view', runsDir, '--port', '0'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    const onData = (d) => {
      out += d
      const match = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)
      if (match) resolve({ port: Number(match[1]), stop: () => child.kill('SIGTERM') })
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (d) => (out += d))
    child.on('exit', (code) => reject(new Error(`view exited ${code} before printing its URL:\n${out}`)))
  })
}

/** The events stream: each event with the moment it arrived. */
function openEvents(port) {
  const events = []
  let buffered = ''
  const req = get({ host: '127.0.0.1', port, path: '/api/events' }, (res) => {
    res.setEncoding('utf8')
    res.on('data', (chunk) => {
      const at = Date.now()
      buffered += chunk
      let cut
      while ((cut = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, cut)
        buffered = buffered.slice(cut + 2)
        const data = block.split('\n').find((l) => l.startsWith('data: '))
        if (data) events.push({ at, event: JSON.parse(data.slice(6)) })
      }
    })
  })
  req.on('error', () => undefined)
  return { events, close: () => req.destroy() }
}

/** When a logged trial record's last phase ended (its timing: a start and phase offsets). */
function finishedAt(record) {
  const { startedAt, phases } = record.timing
  return Date.parse(startedAt) + Math.max(0, ...phases.map((p) => p.startMs + p.durationMs))
}

/** Polls the staging logs every 5 ms: the moment a record line is first there, and when that trial finished. */
function pollStaging(runsDir) {
  const staging = join(runsDir, '.staging')
  const seen = { firstRecordAt: null, finishedAt: null }
  const timer = setInterval(() => {
    if (seen.firstRecordAt !== null) return
    let runs
    try {
      runs = readdirSync(staging)
    } catch {
      return
    }
    for (const run of runs) {
      let logs
      try {
        logs = readdirSync(join(staging, run, 'logs'))
      } catch {
        continue
      }
      for (const log of logs) {
        let text
        try {
          text = readFileSync(join(staging, run, 'logs', log), 'utf8')
        } catch {
          continue
        }
        const line = text.split('\n').find((l) => l.startsWith('{"record":') && l.endsWith('}'))
        if (line === undefined) continue
        seen.firstRecordAt = Date.now()
        seen.finishedAt = finishedAt(JSON.parse(line).record)
        return
      }
    }
  }, POLL_MS)
  return { seen, stop: () => clearInterval(timer) }
}

function runVitest(runsDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [vitestBin, 'run', '--config', 'bench/fixtures/pipeline.config.ts'],
      {
        cwd: root,
        env: {
          ...process.env,
          CI: 'true',
          AGENTEVALOPS_BENCH_TASKS: String(TASKS),
          AGENTEVALOPS_RUNS_DIR: runsDir,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const killer = setTimeout(() => child.kill('SIGKILL'), 300_000)
    child.on('exit', (code) => {
      clearTimeout(killer)
      if (code === 0) resolve()
      else reject(new Error(`vitest exited ${code}:\n${out.slice(-3000)}`))
    })
  })
}

async function waitFor(check, what, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    const value = check()
    if (value) return value
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`timed out waiting for ${what}`)
}

const work = mkdtempSync(join(tmpdir(), 'aeo-bench-view-live-'))
try {
  const firstTrial = { view: [], poll: [] }
  const ended = []
  for (let round = 0; round < REPEATS; round++) {
    const runsDir = join(work, `runs-${round}`)
    mkdirSync(runsDir)
    const view = await startView(runsDir)
    const stream = openEvents(view.port)
    const poll = pollStaging(runsDir)
    try {
      await runVitest(runsDir)
      const progress = await waitFor(
        () => stream.events.find((e) => e.event.type !== 'runs-changed' && e.event.run.trials > 0),
        'a run-progress with trials',
      )
      const end = await waitFor(() => stream.events.find((e) => e.event.type === 'run-ended'), 'run-ended')
      const [bundle] = readdirSync(runsDir).filter((n) => !n.startsWith('.'))
      const sealedAt = statSync(join(runsDir, bundle, 'manifest.json')).mtimeMs
      if (poll.seen.firstRecordAt === null) throw new Error('the 5 ms poll never saw a record')
      // Both from the moment the trial finished (its record's timing), on this machine's one clock.
      firstTrial.view.push(progress.at - poll.seen.finishedAt)
      firstTrial.poll.push(poll.seen.firstRecordAt - poll.seen.finishedAt)
      ended.push(end.at - sealedAt)
    } finally {
      poll.stop()
      stream.close()
      view.stop()
    }
  }
  const fmt = (ms) => `${ms.toFixed(0)} ms`
  console.log(`view live: a ${TASKS}-trial vitest run followed through /api/events, medians of ${REPEATS}`)
  console.log(
    `  first finished trial → seen by a ${POLL_MS} ms poll of the logs (baseline): ${fmt(median(firstTrial.poll))}`,
  )
  console.log(
    `  first finished trial → run-progress on the events stream:             ${fmt(median(firstTrial.view))}`,
  )
  console.log(`  bundle sealed → run-ended on the events stream:                       ${fmt(median(ended))}`)
  console.log(
    `  (ratio view/poll ${(median(firstTrial.view) / Math.max(1, median(firstTrial.poll))).toFixed(1)}×; ` +
      `the issue asks for under 1,000 ms)`,
  )
} finally {
  rmSync(work, { recursive: true, force: true })
}
