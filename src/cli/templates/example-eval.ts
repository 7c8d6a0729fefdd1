/** `evals/example.eval.ts`: a small benchmark of three tasks, answered by a scripted agent, that all pass. */
export const EXAMPLE_EVAL_FILE = 'evals/example.eval.ts'

export const exampleEvalTemplate = `// An example agent evaluation, written by \`agentevalops init\`. Run it with:
//
//   npx vitest run --project evals
//
// Every task × trial is one Vitest case: the runner answers the task, the evaluators score the trace it leaves,
// the policy checks it, and at the end of the run a checksummed result bundle lands in runs/<runId>/ (traces,
// scores, report.md). The runner here is a scripted mock agent (no model calls, no API key needed): replace it
// with your own agent (any object with runnerInfo() and run()) and the tasks with yours.
import {
  checksumOf,
  defineTask,
  matchesExpected,
  mockRunner,
  toolAccess,
  type BenchmarkAdapter,
} from 'agentevalops/adapters' // what a trial needs: the Vitest workers load no more of the package than this
import { evalBenchmark } from 'agentevalops/plugin'
// Types of the trace matchers (toHaveNoLoops, toCallTool, …); the plugin registers the matchers themselves.
import type {} from 'agentevalops/matchers'

const BENCHMARK = 'example'

const tasks = [
  defineTask({
    id: 'arithmetic',
    benchmark: BENCHMARK,
    prompt: 'What is 17 + 25? Answer with the number only.',
    expected: '42', // a plain string: the answer must be exactly this
  }),
  defineTask({
    id: 'capital',
    benchmark: BENCHMARK,
    prompt: 'What is the capital of France? Answer in one sentence.',
    expected: { contains: 'Paris' },
  }),
  defineTask({
    id: 'weather-tool',
    benchmark: BENCHMARK,
    prompt: 'How warm is it in Paris right now, in degrees Celsius?',
    expected: { regex: '\\\\b18\\\\b' },
    tools: [
      {
        name: 'get_weather',
        description: 'Current temperature of a city in degrees Celsius.',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ],
  }),
]

const benchmark: BenchmarkAdapter = {
  id: BENCHMARK,
  version: '1.0.0',
  listTasks: () => tasks,
  // The dataset checksum changes whenever a task does, so results of different task sets are never compared.
  info: () => ({ id: BENCHMARK, version: '1.0.0', datasetChecksum: checksumOf(tasks.map((t) => t.checksum)) }),
}

// What the scripted agent does for each task, step by step.
const runner = mockRunner({
  name: 'example-scripted-agent',
  scripts: {
    arithmetic: {
      steps: [
        { kind: 'model_call', text: '17 + 25 = 42', tokens: 30 },
        { kind: 'final_answer', answer: '42' },
      ],
    },
    capital: {
      steps: [
        { kind: 'model_call', text: 'The capital of France is Paris.', tokens: 40 },
        { kind: 'final_answer', answer: 'The capital of France is Paris.' },
      ],
    },
    'weather-tool': {
      steps: [
        { kind: 'plan', text: 'Look up the weather in Paris.' },
        { kind: 'tool_call', tool: 'get_weather', args: { city: 'Paris' } },
        { kind: 'tool_result', tool: 'get_weather', result: { city: 'Paris', celsius: 18 } },
        { kind: 'final_answer', answer: 'It is 18 °C in Paris right now.' },
      ],
    },
  },
})

evalBenchmark({
  benchmark,
  runner,
  evaluators: [matchesExpected()], // exact, contains or regex: whatever each task's \`expected\` asks for
  policy: [toolAccess({ deny: ['delete_database'] })],
  limits: { maxTurns: 10, maxWallSeconds: 30 },
  trials: 1,
  gate: 'each', // every trial must pass; use { minPassRate: 0.8 } to gate on the aggregate instead
  assert: ({ task, events }, expect) => {
    expect(events).toHaveNoLoops()
    if (task.id === 'weather-tool') expect(events).toCallTool('get_weather', { city: 'Paris' })
  },
})
`
