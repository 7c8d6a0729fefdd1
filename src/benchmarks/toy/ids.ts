/**
 * Task ids are the join key between tasks, scripts, stored traces and baselines: they must never change once
 * published, so they live in one place and everything else refers to them by name.
 */
export const TOY_TASK_IDS = {
  exact: 'arith-add',
  contains: 'capital-france',
  regex: 'iso-date',
  json: 'json-profile',
  multiStep: 'weather-fahrenheit',
  singleTool: 'calc-multiply',
  writeFile: 'write-file',
  wrongAnswer: 'wrong-answer',
  agentError: 'agent-error',
  toolLoop: 'tool-loop',
  forbiddenTool: 'forbidden-tool',
  costCeiling: 'cost-ceiling',
  tokenLimit: 'token-limit',
  timeLimit: 'time-limit',
  turnLimit: 'turn-limit',
} as const

export type ToyTaskId = (typeof TOY_TASK_IDS)[keyof typeof TOY_TASK_IDS]
