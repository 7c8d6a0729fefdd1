// A bundle as a real run of the scripted (mock) runner makes one: toy tasks through the engine, summarised by the
// stats scorer, written by writeBundle — the bundle reporter's steps, without Vitest around them.
import { join, relative } from 'node:path'
import { mockRunner } from '../../src/agents/index.ts'
import {
  TOY_FORBIDDEN_TOOLS,
  TOY_TASK_IDS,
  toyBenchmark,
  toyLimits,
  toyScripts,
} from '../../src/benchmarks/index.ts'
import { writeBundle } from '../../src/bundles/index.ts'
import {
  benchmarkTraceDir,
  type AgentScript,
  type RunMetadata,
  type TrialRecord,
} from '../../src/core/index.ts'
import { runTrial } from '../../src/engine/index.ts'
import { makeMetadata } from './fixtures.ts'
import { matchesExpected } from '../../src/evaluators/index.ts'
import { toolAccess } from '../../src/policy/index.ts'
import { statsScorer } from '../../src/scorers/index.ts'
import { JsonlTraceStore } from '../../src/stores/index.ts'

export const MOCK_RUN_ID = '01a22a00-0000-7000-8000-0000000000aa'

/**
 * Tool chains that complete (one tool, two tools, a loop, a written file, calls without results), a policy
 * violation, an agent error and a call the wall-time limit cuts short before its result: the scripted runner's
 * events carry no callId.
 */
export const MOCK_RUN_TASKS = [
  TOY_TASK_IDS.exact,
  TOY_TASK_IDS.contains,
  TOY_TASK_IDS.singleTool,
  TOY_TASK_IDS.multiStep,
  TOY_TASK_IDS.toolLoop,
  TOY_TASK_IDS.forbiddenTool,
  TOY_TASK_IDS.writeFile,
  TOY_TASK_IDS.agentError,
  TOY_TASK_IDS.timeLimit,
]

/** The toy script waits before its tool call is emitted; this one waits inside it, as a slow tool would. */
const CUT_SHORT_IN_A_CALL: AgentScript = {
  steps: [
    { kind: 'tool_call', tool: 'wait_for_build', args: { build: 'nightly' } },
    { kind: 'tool_result', tool: 'wait_for_build', result: 'green', delayMs: 5000 },
    { kind: 'final_answer', answer: 'The nightly build is green.' },
  ],
}

/** A script that records its calls and never their results (as some CLI agents log only what they call). */
const CALLS_ONLY: AgentScript = {
  steps: [
    { kind: 'tool_call', tool: 'search', args: { query: 'capital of France' } },
    { kind: 'tool_call', tool: 'search', args: { query: 'Paris' } },
    { kind: 'final_answer', answer: 'The capital of France is Paris.' },
  ],
}

export async function mockRunBundle(work: string): Promise<string> {
  const staging = join(work, 'staging')
  const bench = toyBenchmark()
  const [tasks, info] = await Promise.all([bench.listTasks({ id: MOCK_RUN_TASKS }), bench.info()])
  const traceRoot = benchmarkTraceDir(staging, info.id)
  const store = new JsonlTraceStore(traceRoot)
  const runner = mockRunner({
    scripts: {
      ...toyScripts,
      [TOY_TASK_IDS.timeLimit]: CUT_SHORT_IN_A_CALL,
      [TOY_TASK_IDS.contains]: CALLS_ONLY,
    },
  })
  const trials: TrialRecord[] = []
  for (const task of tasks) {
    const { record } = await runTrial({
      runId: MOCK_RUN_ID,
      benchmark: info,
      task,
      trial: 0,
      runner,
      prepare: (t) => bench.prepare!(t),
      teardown: (t, env) => bench.teardown!(t, env),
      evaluators: [matchesExpected()],
      policy: [toolAccess({ deny: [...TOY_FORBIDDEN_TOOLS] })],
      // The time-limit task waits 5 s for its tool's result: a short limit cuts it there just the same.
      limits: { ...toyLimits, maxWallSeconds: 0.3 },
      traceStore: store,
    })
    trials.push({ ...record, tracePath: relative(staging, join(traceRoot, record.tracePath)) })
  }
  const summary = statsScorer().summarize(trials)
  const metadata: RunMetadata = {
    ...makeMetadata(trials, { runId: MOCK_RUN_ID, benchmarks: [info] }),
    labels: { suite: 'mock-run' },
    target: trials[0]!.runner,
    targets: [trials[0]!.runner],
  }
  return writeBundle({
    runsDir: join(work, 'runs'),
    metadata,
    trials,
    summary,
    traceFiles: trials.map((t) => join(staging, t.tracePath)),
    reports: { 'report.md': '# Run mock-run\n' },
    replayCommand: 'npx vitest run --project evals',
  })
}
