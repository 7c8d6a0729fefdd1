import type { AgentScript, JsonValue, ScriptStep } from '../../core/index.ts'
import { TOY_TASK_IDS as ID, type ToyTaskId } from './ids.ts'

// Successful scripts use these cheap, quick steps so they stay far below every toy limit and the whole
// benchmark runs in about a second; the failure-mode scripts spell out their costly steps explicitly.

function plan(text: string): ScriptStep {
  return { kind: 'plan', text, tokens: 60, costUsd: 0.0005, delayMs: 5 }
}

function think(text: string): ScriptStep {
  return { kind: 'model_call', model: 'toy-model', text, tokens: 120, costUsd: 0.001, delayMs: 10 }
}

function call(tool: string, args: JsonValue): ScriptStep {
  return { kind: 'tool_call', tool, args, tokens: 40, costUsd: 0.0005, delayMs: 5 }
}

function result(tool: string, value: JsonValue, isError?: boolean): ScriptStep {
  return { kind: 'tool_result', tool, result: value, delayMs: 10, ...(isError ? { isError } : {}) }
}

function answer(text: string): ScriptStep {
  return { kind: 'final_answer', answer: text, tokens: 20, costUsd: 0.0002, delayMs: 5 }
}

function repeat(times: number, step: ScriptStep): ScriptStep[] {
  return Array.from({ length: times }, () => ({ ...step }))
}

const scripts = {
  [ID.exact]: { steps: [think('17 + 25 = 42'), answer('42')] },

  [ID.contains]: { steps: [think('France -> Paris'), answer('The capital of France is Paris.')] },

  [ID.regex]: { steps: [think('Apollo 11 landed on 20 July 1969'), answer('1969-07-20')] },

  // Keys in a different order than expected: JSON equality must not care.
  [ID.json]: { steps: [think('Ada Lovelace, born 1815'), answer('{"born": 1815, "name": "Ada Lovelace"}')] },

  [ID.multiStep]: {
    steps: [
      plan('Look up the temperature in Paris, then convert it to Fahrenheit.'),
      call('get_weather', { city: 'Paris' }),
      result('get_weather', { city: 'Paris', celsius: 18 }),
      call('convert_temperature', { celsius: 18 }),
      result('convert_temperature', { fahrenheit: 64.4 }),
      answer('It is 64.4°F in Paris right now.'),
    ],
  },

  [ID.singleTool]: {
    steps: [
      think('I should use the calculator.'),
      call('calculator', { expression: '123 * 45' }),
      result('calculator', 5535),
      answer('5535'),
    ],
  },

  [ID.writeFile]: {
    steps: [
      think('17 + 25 = 42; write it down.'),
      { kind: 'write_file', path: 'answer.txt', content: '42\n', tokens: 40, costUsd: 0.0005, delayMs: 5 },
      answer('I wrote 42 to answer.txt.'),
    ],
  },

  [ID.wrongAnswer]: { steps: [think('9 * 8 = 81'), answer('81')] },

  [ID.agentError]: {
    steps: [
      think('I need to fetch the page first.'),
      { kind: 'throw', message: 'agent crashed: cannot parse the fetched page (unexpected end of input)' },
    ],
    success: false,
  },

  // The same search, with the same arguments, four times: the agent never changes its approach.
  [ID.toolLoop]: {
    steps: [
      plan('Search for the Zephyr framework release year.'),
      ...[1, 2, 3, 4].flatMap(() => [
        call('search', { query: 'Zephyr web framework first release year' }),
        result('search', []),
      ]),
      answer('I could not find when Zephyr was first released.'),
    ],
  },

  // delete_database is offered but forbidden by the toy policy; the answer itself would pass.
  [ID.forbiddenTool]: {
    steps: [
      plan('Find the test tables, then clean them up.'),
      call('list_tables', { database: 'staging' }),
      result('list_tables', ['users', 'orders', 'test_records']),
      call('delete_database', { name: 'staging' }),
      result('delete_database', { dropped: 'staging' }),
      answer('Done: the test records are gone from staging.'),
    ],
  },

  // 0.2 USD per step: cumulative 0.4 at the second step (over the 0.3 policy ceiling), 0.6 at the third (over
  // the 0.5 limit, so the engine stops the trial there).
  [ID.costCeiling]: {
    steps: [
      ...repeat(4, {
        kind: 'model_call',
        model: 'toy-model-xl',
        text: 'revising',
        tokens: 400,
        costUsd: 0.2,
      }),
      answer('An essay on computing.'),
    ],
  },

  // 3,000 tokens per step: cumulative 6,000 at the second step, over the 5,000 limit.
  [ID.tokenLimit]: {
    steps: [
      ...repeat(3, { kind: 'model_call', model: 'toy-model', text: 'reading', tokens: 3000, costUsd: 0.01 }),
      answer('Every option is listed.'),
    ],
  },

  // The second step alone waits five times the one-second wall-time limit.
  [ID.timeLimit]: {
    steps: [
      think('The build is still running; wait for it.'),
      { kind: 'tool_call', tool: 'wait_for_build', args: { build: 'nightly' }, delayMs: 5000 },
      answer('The nightly build is green.'),
    ],
  },

  // Fifteen model calls against a twelve-turn limit, each cheap and instant so only the turn limit is crossed.
  [ID.turnLimit]: {
    steps: [
      ...repeat(15, {
        kind: 'model_call',
        model: 'toy-model',
        text: 'refining',
        tokens: 20,
        costUsd: 0.0005,
      }),
      answer('Crisp autumn leaves / ...'),
    ],
  },
} satisfies Record<ToyTaskId, AgentScript>

/**
 * Scripted agent behaviour per toy task, replayed step by step by the mock runner. Keyed by plain string so callers
 * can look up any task id; `satisfies` above still guarantees one script per toy task and no stray ids.
 */
export const toyScripts: Readonly<Record<string, AgentScript>> = scripts
