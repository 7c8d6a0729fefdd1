import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs, tool } from 'ai'
import { z } from 'zod'
import { callableRunner, traced } from '../../../src/index.ts'
import { search } from '../research-assistant.ts'

export const aiSdkRunner = callableRunner(
  async ({ prompt }) => {
    // traced(): every model call, tool call and tool result is in the trace, the trial's limits hold, and the
    // calls are recorded and replayed (a replay never calls the provider, so it needs no key).
    const model = traced(createOpenAI().chat('gpt-4.1-mini'))
    const { text } = await generateText({
      model,
      prompt,
      tools: {
        search: tool({
          description: 'Search the fact index',
          inputSchema: z.object({ query: z.string() }),
          execute: ({ query }) => search(query),
        }),
      },
      stopWhen: stepCountIs(10),
    })
    return text
  },
  { name: 'ai-sdk-researcher', config: { model: 'gpt-4.1-mini' } },
)
