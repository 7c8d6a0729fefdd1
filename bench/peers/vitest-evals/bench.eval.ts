// vitest-evals 0.16.1, as its README writes a custom app: the agent behind createHarness, the score as a judge
// run after each run(), the cases as Vitest's own table (it.for), concurrent.
import { createHarness, createJudge, describeEval } from 'vitest-evals'
import { cases, scriptedAgent, type Case } from '../shared.ts'

const agent = createHarness<Case, string>({
  name: 'scripted-agent',
  run: async ({ input }) => {
    const answer = await scriptedAgent(input.question)
    return {
      output: answer,
      events: [
        { type: 'message', role: 'user', content: input.question },
        { type: 'message', role: 'assistant', content: answer },
      ],
    }
  },
})

const ExactMatch = createJudge<Case, string>('ExactMatch', ({ input, output }) => ({
  score: output === input.expected ? 1 : 0,
}))

describeEval('bench', { harness: agent, judges: [ExactMatch], judgeThreshold: 1 }, (it) => {
  it.concurrent.for(cases)('$id', async (c, { run }) => {
    await run(c)
  })
})
