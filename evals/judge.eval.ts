// The LLM judge end to end, with no API key: the real Anthropic SDK talks to a fake Messages API on 127.0.0.1
// that this file starts. The fake "model" is a rule: an answer passes when it mentions the word the rubric asks
// for. What is under test is everything around the model: the prompt, the verdict parsing, the evaluator.model_call
// events with their cost, and the judge's score and citations in the bundle.
//
// The judge's calls are recorded beside this file (__recordings__/judge.eval.ts/): with AGENTEVALOPS_RECORD=replay
// the file runs from them alone, with no server at all, and in CI (auto mode) a missing recording fails the run.
import { afterAll } from 'vitest'
import { mockRunner } from '../src/agents/index.ts'
import { defineTask, type AgentScript, type BenchmarkAdapter } from '../src/core/index.ts'
import { llmJudge } from '../src/evaluators/index.ts'
import { recordModeFromEnv } from '../src/recording/index.ts'
import { evalBenchmark } from '../plugin/index.ts'
import { FakeMessagesServer, textReply, type RecordedRequest } from '../test/support/fake-messages-server.ts'

const RUBRIC = 'The final answer must mention "Paris".'

/** Reads the sections of our judge prompt back out of the request, as a model would read them. */
function section(prompt: string, tag: string): string {
  return new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(prompt)?.[1] ?? ''
}

function judgeByRule(request: RecordedRequest) {
  const body = request.body as { messages: { content: string | { text?: string }[] }[] }
  const first = body.messages[0]?.content
  const prompt = typeof first === 'string' ? first : (first?.map((b) => b.text ?? '').join('') ?? '')
  const word = /mention "([^"]+)"/.exec(section(prompt, 'rubric'))?.[1] ?? ''
  const answer = section(prompt, 'final_answer')
  const step = /\[step (\d+)\] final answer/.exec(section(prompt, 'transcript'))?.[1]
  const passed = word !== '' && answer.includes(word)
  const verdict = {
    score: passed ? 1 : 0,
    passed,
    reasoning: passed ? `The answer mentions ${word}.` : `The answer does not mention ${word}.`,
    citations: step === undefined ? [] : [Number(step)],
  }
  return textReply(JSON.stringify(verdict), { input_tokens: 420, output_tokens: 35 })
}

// Replaying needs no server: the base URL then points at a closed port, so a call that slipped past the recording
// would fail loudly instead of passing.
const server =
  recordModeFromEnv() === 'replay' ? undefined : await FakeMessagesServer.start({ responder: judgeByRule })
afterAll(() => server?.close())

const tasks = [
  defineTask({ id: 'judge-capital', benchmark: 'judge-demo', prompt: 'What is the capital of France?' }),
  defineTask({
    id: 'judge-city-of-light',
    benchmark: 'judge-demo',
    prompt: 'Which city is the City of Light?',
  }),
  defineTask({ id: 'judge-wrong-city', benchmark: 'judge-demo', prompt: 'Where is the Louvre?' }),
]
const answer = (text: string): AgentScript => ({
  steps: [
    { kind: 'model_call', model: 'toy-model', tokens: 50, costUsd: 0.0003 },
    { kind: 'final_answer', answer: text },
  ],
})
const scripts = {
  'judge-capital': answer('The capital of France is Paris.'),
  'judge-city-of-light': answer('Paris is called the City of Light.'),
  'judge-wrong-city': answer('The Louvre is in Lyon.'),
}

const benchmark: BenchmarkAdapter = {
  id: 'judge-demo',
  version: '1',
  listTasks: () => tasks,
  info: () => ({
    id: 'judge-demo',
    version: '1',
    datasetChecksum: tasks
      .map((t) => t.checksum)
      .join('')
      .slice(0, 64),
  }),
}

evalBenchmark({
  benchmark,
  runner: mockRunner({ scripts }),
  evaluators: [
    llmJudge({
      rubric: RUBRIC,
      model: 'claude-haiku-4-5',
      baseURL: server?.url ?? 'http://127.0.0.1:9',
      apiKey: 'fake-key-for-the-127.0.0.1-server',
    }),
  ],
  gate: { minPassRate: 0.6 },
  assert: ({ task, record, events }, expect) => {
    const [score] = record.scores
    // A wrong answer is a judged failure, never an error; every verdict cites the final answer's step.
    expect(score?.error).toBeNull()
    expect(score?.passed).toBe(task.id !== 'judge-wrong-city')
    const answerStep = events.find((e) => e.kind === 'agent.final_answer')?.step
    expect(score?.citations).toEqual([answerStep])
    // The judge's call is in the trace, priced from the table: 420 input + 35 output tokens of Haiku 4.5.
    const call = events.find((e) => e.kind === 'evaluator.model_call')
    expect(call?.payload).toMatchObject({ evaluatorId: 'llm_judge', status: 'ok', inputTokens: 420 })
    expect(score?.costUsd).toBeCloseTo((420 * 1 + 35 * 5) / 1e6, 12)
  },
})
