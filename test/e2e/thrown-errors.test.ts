// A runner and an evaluator that throw, run by a real Vitest child: the bundle alone says what was thrown (its type,
// its code, its message with secrets replaced) and where, in the user's own frames — in scores.json, in the trace
// event of the crash, and in report.html's trial view. No frame names Node's internals, node_modules (Vitest), or a
// source file of this package.
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ThrownError } from '../../src/core/index.ts'
import { CHROMIUM, CHROMIUM_ARGS } from '../support/chromium.ts'
import {
  EVAL_IMPORTS,
  REPO_ROOT,
  bundleDirs,
  createTempProject,
  eventsOf,
  readBundleEvents,
  readScores,
  runVitest,
  tail,
  validateWithCli,
  type TempProject,
} from './helpers.ts'

const CANARY = 'canary-5d1e8b7a2f9c'

const evalFile = `${EVAL_IMPORTS}
import type { AgentRunner, Evaluator } from ${JSON.stringify(join(REPO_ROOT, 'src/core/index.ts'))}

class ConfigParseError extends Error {
  code = 'E_CONFIG'
}

function parseConfig(text: string): never {
  throw new ConfigParseError('cannot parse the config, key ' + (process.env.CANARY_API_KEY ?? 'missing'))
}

function readScore(answer: string): never {
  return (null as unknown as { score(a: string): never }).score(answer)
}

const tasks: TaskSpec[] = [
  defineTask({ id: 'crash', benchmark: 'crashes', prompt: 'Crash.' }),
  defineTask({ id: 'judge-crash', benchmark: 'crashes', prompt: 'Answer.' }),
]
const benchmark: BenchmarkAdapter = {
  id: 'crashes',
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: 'crashes', version: '1', datasetChecksum: 'e2e' }),
}
const runner: AgentRunner = {
  runnerInfo: () => ({ name: 'crashy', kind: 'custom', config: {} }),
  async run(task) {
    if (task.id === 'crash') parseConfig('{')
    return { finalAnswer: 'fine' }
  },
}
const picky: Evaluator = {
  id: 'picky',
  kind: 'deterministic',
  evaluate(view) {
    if (view.task.id === 'judge-crash') readScore(view.result.finalAnswer ?? '')
    return { score: 1, passed: true, explanation: 'ok' }
  },
}
evalBenchmark({ benchmark, runner, evaluators: [picky], gate: { minPassRate: 0 } })
`

/** A frame this test must never see in a bundle: Node's, an installed package's, or a source file of ours. */
function foreignFrame(frame: string): boolean {
  return (
    /node:|node_modules|<anonymous>/.test(frame) ||
    frame.includes(`${REPO_ROOT}/src/`) ||
    frame.includes(`${REPO_ROOT}/plugin/`) ||
    /(^|[ (])(src|plugin|reporters|dist)\//.test(frame)
  )
}

function expectUserStack(thrown: ThrownError | undefined, topFunction: string): string[] {
  expect(thrown).toBeDefined()
  const stack = thrown!.stack
  expect(stack.length).toBeGreaterThan(0)
  expect(stack[0]).toMatch(new RegExp(`^${topFunction} \\(evals/crashes\\.eval\\.ts:\\d+:\\d+\\)$`))
  expect(stack.filter(foreignFrame)).toEqual([])
  return stack
}

let project: TempProject
beforeAll(async () => {
  project = await createTempProject({ 'evals/crashes.eval.ts': evalFile })
})
afterAll(async () => project?.remove())

describe('what a runner or an evaluator threw is in the bundle', { timeout: 90_000 }, () => {
  it('keeps the type, code, redacted message and user frames in scores.json, the trace and report.html', async () => {
    const result = await runVitest(['run', '--project', 'evals'], {
      cwd: project.root,
      runsDir: project.runsDir,
      env: { CANARY_API_KEY: CANARY },
      timeoutMs: 60_000,
    })
    const [dir] = await bundleDirs(project.runsDir)
    expect(dir, tail(result.output)).toBeDefined()
    expect((await validateWithCli(dir!)).code).toBe(0)
    const scores = await readScores(dir!)
    const events = await readBundleEvents(dir!)

    // The runner's crash: on the trial's result and on its agent.terminal event.
    const crash = scores.trials.find((t) => t.taskId === 'crash')!
    expect(crash.outcome).toBe('agent_error')
    const thrown = crash.result?.thrown
    expect(thrown).toMatchObject({
      type: 'ConfigParseError',
      code: 'E_CONFIG',
      message: 'cannot parse the config, key [REDACTED:CANARY_API_KEY]',
    })
    const runnerStack = expectUserStack(thrown, 'parseConfig')
    expect(runnerStack[1]).toMatch(/^Object\.run \(evals\/crashes\.eval\.ts:\d+:\d+\)$/)
    const terminal = eventsOf(events, 'crash').find((e) => e.kind === 'agent.terminal')
    expect(terminal?.payload.thrown).toEqual(thrown)

    // The evaluator's crash: on its score, and on its evaluator.score event.
    const judged = scores.trials.find((t) => t.taskId === 'judge-crash')!
    expect(judged.outcome).toBe('infra_failure')
    const score = judged.scores.find((s) => s.evaluatorId === 'picky')!
    expect(score.thrown).toMatchObject({ type: 'TypeError' })
    expect(score.thrown!.message).toContain("reading 'score'")
    const evaluatorStack = expectUserStack(score.thrown, 'readScore')
    expect(evaluatorStack[1]).toMatch(/^Object\.evaluate \(evals\/crashes\.eval\.ts:\d+:\d+\)$/)
    // The failure message of its Vitest case names the type too, with the frame it came from.
    expect(result.output).toContain(`[TypeError at ${evaluatorStack[0]}]`)
    const scoreEvent = eventsOf(events, 'judge-crash').find((e) => e.kind === 'evaluator.score')
    expect(scoreEvent?.payload.thrown).toEqual(score.thrown)

    // Nowhere in the bundle a secret, a frame of ours or an installed package's.
    for (const file of ['scores.json', 'traces.jsonl', 'report.html', 'report.md']) {
      const text = await readFile(join(dir!, file), 'utf8')
      expect(text, file).not.toContain(CANARY)
      expect(text, file).not.toContain(`${REPO_ROOT}/src/`)
      expect(text, file).not.toContain(`${REPO_ROOT}/node_modules/`)
    }

    // report.html shows both in the trial view, as text.
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: install it with \`apt-get install chromium\`.`)
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    try {
      const page = await (await browser.newContext({ offline: true })).newPage()
      await page.goto(pathToFileURL(join(dir!, 'report.html')).href)
      await page.waitForSelector('[data-testid="table-tasks"][data-ready="true"]', { timeout: 10_000 })
      const open = async (taskId: string) => {
        await page
          .locator(`[data-testid="table-tasks"] [data-testid="row"][data-key="crashes/${taskId}"]`)
          .getByTestId('open-task')
          .click()
        return page.getByTestId('task-detail').locator('[data-testid="trial"]').first()
      }
      const crashTrial = await open('crash')
      expect(await crashTrial.getByTestId('trial-stack').textContent()).toBe(
        [
          'ConfigParseError [E_CONFIG]: cannot parse the config, key [REDACTED:CANARY_API_KEY]',
          ...runnerStack.map((f) => `    at ${f}`),
        ].join('\n'),
      )
      const judgedTrial = await open('judge-crash')
      const shown = await judgedTrial.getByTestId('score-stack').textContent()
      expect(shown).toContain(`TypeError: ${score.thrown!.message}`)
      expect(shown).toContain(`    at ${evaluatorStack[0]}`)
    } finally {
      await browser.close()
    }
  })
})
