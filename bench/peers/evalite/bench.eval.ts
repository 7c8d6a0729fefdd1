// evalite 0.19.0, as its docs write an eval: data, task, scorers; the task is the scripted agent (no model).
import { createScorer, evalite } from 'evalite'
import { cases, scriptedAgent } from '../shared.ts'

const ExactMatch = createScorer<string, string>({
  name: 'ExactMatch',
  scorer: ({ output, expected }) => (output === expected ? 1 : 0),
})

evalite('bench', {
  data: () => cases.map((c) => ({ input: c.question, expected: c.expected })),
  task: (question) => scriptedAgent(question),
  scorers: [ExactMatch],
})
