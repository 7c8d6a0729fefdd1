#!/usr/bin/env node
// One Vitest watch-mode session, driven by its parent over stdin: each "rerun" line reruns every test file, as a
// file save would, and answers with one `@bench {"wallMs":…,"failed":…}` line once the run has ended (reporters'
// onTestRunEnd included, so the bundle is sealed). The parent measures the session's CPU and RSS from outside.
import { createInterface } from 'node:readline'
import { createVitest } from 'vitest/node'

const config = process.argv[2]
if (!config) throw new Error('usage: watch-rerun.mjs <vitest config>')

const vitest = await createVitest('test', { config, watch: true })
const answer = (fields) => process.stdout.write(`\n@bench ${JSON.stringify(fields)}\n`)
const failed = () => vitest.state.getCountOfFailedTests() + vitest.state.getUnhandledErrors().length

// The first run is the cold start of the session; only the reruns after it are measured.
await vitest.start()
answer({ ready: true, failed: failed() })

for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'rerun') {
    const started = process.hrtime.bigint()
    await vitest.rerunFiles()
    answer({ wallMs: Number(process.hrtime.bigint() - started) / 1e6, failed: failed() })
  } else if (line === 'close') break
}
await vitest.close()
process.exit(0)
