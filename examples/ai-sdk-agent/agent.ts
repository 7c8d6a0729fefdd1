// An agent built the way AI SDK users build them: generateText over an OpenAI model, two tools, several steps.
// `traced(model)` is the only line that is ours: inside callableRunner every model call is an agent.model_call
// event (tokens, cost), every tool call and result an event, the trial's limits hold, and the calls are recorded
// and replayed (AGENTEVALOPS_RECORD) with no key and no network.
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs, tool, type ToolSet } from 'ai'
import { z } from 'zod'
import { callableRunner, traced } from '../../src/index.ts'

export const MODEL = 'gpt-4.1-mini'

const HEIGHTS_M: Readonly<Record<string, number>> = {
  'eiffel tower': 330,
  'statue of liberty': 93,
  'big ben': 96,
}

export const tools = {
  lookupHeight: tool({
    description: 'The height of a landmark, in metres',
    inputSchema: z.object({ landmark: z.string() }),
    execute: ({ landmark }) => {
      const metres = HEIGHTS_M[landmark.toLowerCase()]
      if (metres === undefined) throw new Error(`no height known for ${JSON.stringify(landmark)}`)
      return { landmark, metres }
    },
  }),
  metresToFeet: tool({
    description: 'Converts metres to feet, rounded to the nearest foot',
    inputSchema: z.object({ metres: z.number() }),
    execute: ({ metres }) => ({ feet: Math.round(metres * 3.28084) }),
  }),
} satisfies ToolSet

/** The agent, with the tools it is given (the repository's test changes one to see a replay differ). */
export function landmarkAgent(agentTools: ToolSet = tools) {
  return callableRunner(
    async ({ prompt }) => {
      // The provider reads OPENAI_BASE_URL (a gateway; in the repository's test, a local fake) as it is made, and
      // OPENAI_API_KEY only when it calls: a replay never calls, so it needs no key. A model made once at module
      // level works the same; here it follows the environment of each run.
      const model = traced(createOpenAI().chat(MODEL))
      const { text } = await generateText({
        model,
        system: 'Answer with the number only. Use the tools to find heights and convert units.',
        prompt,
        tools: agentTools,
        stopWhen: stepCountIs(6),
      })
      return text
    },
    { name: 'ai-sdk-landmarks', config: { model: MODEL } },
  )
}
