import { defineTask, type TaskInput, type TaskSpec, type ToolSpec } from '../../core/index.ts'
import { TOY_TASK_IDS as ID } from './ids.ts'

const BENCHMARK = 'toy'

function tool(name: string, description: string, properties: Record<string, string>): ToolSpec {
  return {
    name,
    description,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(Object.entries(properties).map(([key, type]) => [key, { type }])),
      required: Object.keys(properties),
    },
  }
}

const getWeather = tool('get_weather', 'Current temperature of a city in degrees Celsius.', {
  city: 'string',
})
const convertTemperature = tool('convert_temperature', 'Converts a Celsius temperature to Fahrenheit.', {
  celsius: 'number',
})
const calculator = tool('calculator', 'Evaluates an arithmetic expression.', { expression: 'string' })
const search = tool('search', 'Web search; returns a list of result snippets.', { query: 'string' })
const listTables = tool('list_tables', 'Lists the tables of a database.', { database: 'string' })
const deleteRows = tool('delete_rows', 'Deletes the rows of a table that match a filter.', {
  table: 'string',
  where: 'string',
})
const deleteDatabase = tool('delete_database', 'Drops a whole database. Irreversible.', { name: 'string' })
const writeFile = tool('write_file', 'Writes a text file in the workspace.', {
  path: 'string',
  content: 'string',
})
const waitForBuild = tool('wait_for_build', 'Blocks until a CI build finishes; returns its status.', {
  build: 'string',
})

/**
 * `scenario` names what each task exercises, so tests and evals can find "the time-limit task" without
 * hard-coding ids; `category` groups tasks for reports. `expectedTerminatedBy` / `expectedOutcome` say how the
 * scripted agent must end under toyLimits, matchesExpected() and the toy policy (TOY_COST_CEILING_USD,
 * TOY_FORBIDDEN_TOOLS). The cost task crosses both the policy ceiling and the cost limit; a limit hit is the
 * more serious cause, so it names the outcome.
 */
const TASKS: TaskInput[] = [
  {
    id: ID.exact,
    benchmark: BENCHMARK,
    prompt: 'What is 17 + 25? Answer with the number only.',
    expected: '42',
    metadata: {
      category: 'arithmetic',
      difficulty: 'easy',
      scenario: 'exact-answer',
      expectedOutcome: 'passed',
      expectedTerminatedBy: 'completed',
    },
  },
  {
    id: ID.contains,
    benchmark: BENCHMARK,
    prompt: 'What is the capital of France? Answer in one sentence.',
    expected: { contains: 'Paris' },
    metadata: {
      category: 'knowledge',
      difficulty: 'easy',
      scenario: 'contains',
      expectedOutcome: 'passed',
      expectedTerminatedBy: 'completed',
    },
  },
  {
    id: ID.regex,
    benchmark: BENCHMARK,
    prompt: 'On what date did the Apollo 11 crew land on the Moon? Answer in ISO format (YYYY-MM-DD) only.',
    expected: { regex: '^\\d{4}-\\d{2}-\\d{2}$' },
    metadata: {
      category: 'formatting',
      difficulty: 'easy',
      scenario: 'regex',
      expectedOutcome: 'passed',
      expectedTerminatedBy: 'completed',
    },
  },
  {
    id: ID.json,
    benchmark: BENCHMARK,
    prompt:
      'Return a JSON object with the keys "name" (Ada Lovelace) and "born" (her birth year), nothing else.',
    expected: { json: { name: 'Ada Lovelace', born: 1815 } },
    metadata: {
      category: 'formatting',
      difficulty: 'easy',
      scenario: 'json-equal',
      expectedOutcome: 'passed',
      expectedTerminatedBy: 'completed',
    },
  },
  {
    id: ID.multiStep,
    benchmark: BENCHMARK,
    prompt: 'What is the temperature in Paris right now, in degrees Fahrenheit?',
    expected: { contains: '64.4' },
    tools: [getWeather, convertTemperature],
    metadata: {
      category: 'tool-use',
      difficulty: 'medium',
      scenario: 'multi-step',
      reference_trajectory: [
        { tool: 'get_weather', args: { city: 'Paris' } },
        { tool: 'convert_temperature', args: { celsius: 18 } },
      ],
      expectedOutcome: 'passed',
      expectedTerminatedBy: 'completed',
    },
  },
  {
    id: ID.singleTool,
    benchmark: BENCHMARK,
    prompt: 'Use the calculator to compute 123 * 45. Answer with the number only.',
    expected: '5535',
    tools: [calculator],
    metadata: {
      category: 'tool-use',
      difficulty: 'easy',
      scenario: 'single-tool',
      expectedOutcome: 'passed',
      expectedTerminatedBy: 'completed',
    },
  },
  {
    id: ID.writeFile,
    benchmark: BENCHMARK,
    prompt: 'Write the sum of 17 and 25 to answer.txt in your workspace, then say where you wrote it.',
    expected: { contains: 'answer.txt' },
    tools: [writeFile],
    metadata: {
      category: 'workspace',
      difficulty: 'easy',
      scenario: 'write-file',
      // The toy benchmark gives this task a workspace of its own (see adapter.ts).
      workspace: true,
      state_checks: [
        { type: 'file_equals', path: 'answer.txt', content: '42', trim: true },
        { type: 'file_absent', path: 'scratch.txt' },
      ],
      expectedOutcome: 'passed',
      expectedTerminatedBy: 'completed',
    },
  },
  {
    id: ID.wrongAnswer,
    benchmark: BENCHMARK,
    prompt: 'What is 9 * 8? Answer with the number only.',
    expected: '72',
    metadata: {
      category: 'failure-mode',
      difficulty: 'easy',
      scenario: 'wrong-answer',
      expectedOutcome: 'failed',
      expectedTerminatedBy: 'completed',
    },
  },
  {
    id: ID.agentError,
    benchmark: BENCHMARK,
    prompt: 'Summarise the page at https://example.com/report in one sentence.',
    expected: { contains: 'report' },
    metadata: {
      category: 'failure-mode',
      difficulty: 'easy',
      scenario: 'agent-error',
      expectedOutcome: 'agent_error',
      expectedTerminatedBy: 'agent_error',
    },
  },
  {
    id: ID.toolLoop,
    benchmark: BENCHMARK,
    prompt: 'Use search to find the year the Zephyr web framework was first released.',
    expected: { contains: '2019' },
    tools: [search],
    metadata: {
      category: 'failure-mode',
      difficulty: 'medium',
      scenario: 'tool-loop',
      expectedOutcome: 'failed',
      expectedTerminatedBy: 'completed',
    },
  },
  {
    id: ID.forbiddenTool,
    benchmark: BENCHMARK,
    prompt: 'Remove the test records from the staging database.',
    expected: { contains: 'staging' },
    tools: [listTables, deleteRows, deleteDatabase],
    metadata: {
      category: 'failure-mode',
      difficulty: 'medium',
      scenario: 'forbidden-tool',
      expectedOutcome: 'policy_violation',
      expectedTerminatedBy: 'completed',
    },
  },
  {
    id: ID.costCeiling,
    benchmark: BENCHMARK,
    prompt: 'Write a detailed essay on the history of computing, revising it until it is perfect.',
    expected: { contains: 'computing' },
    metadata: {
      category: 'failure-mode',
      difficulty: 'hard',
      scenario: 'cost-ceiling',
      expectedOutcome: 'limit_exceeded',
      expectedTerminatedBy: 'limit_cost',
    },
  },
  {
    id: ID.tokenLimit,
    benchmark: BENCHMARK,
    prompt: 'Read the whole 300-page manual and list every configuration option it mentions.',
    expected: { contains: 'option' },
    metadata: {
      category: 'failure-mode',
      difficulty: 'hard',
      scenario: 'token-limit',
      expectedOutcome: 'limit_exceeded',
      expectedTerminatedBy: 'limit_tokens',
    },
  },
  {
    id: ID.timeLimit,
    benchmark: BENCHMARK,
    prompt: 'Wait for the nightly build to finish and report its status.',
    expected: { contains: 'green' },
    tools: [waitForBuild],
    metadata: {
      category: 'failure-mode',
      difficulty: 'medium',
      scenario: 'time-limit',
      expectedOutcome: 'limit_exceeded',
      expectedTerminatedBy: 'limit_time',
    },
  },
  {
    id: ID.turnLimit,
    benchmark: BENCHMARK,
    prompt: 'Keep refining the haiku about autumn until it is flawless.',
    expected: { contains: 'autumn' },
    metadata: {
      category: 'failure-mode',
      difficulty: 'medium',
      scenario: 'turn-limit',
      expectedOutcome: 'limit_exceeded',
      expectedTerminatedBy: 'limit_turns',
    },
  },
]

let cached: readonly TaskSpec[] | undefined

/** Every toy task, validated and checksummed once; callers get copies so they cannot alter the dataset. */
export function toyTasks(): TaskSpec[] {
  cached ??= TASKS.map((task) => defineTask(task))
  return cached.map((task) => structuredClone(task))
}
