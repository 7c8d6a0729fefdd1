import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs, tool } from 'ai'
import { z } from 'zod'
import { callableRunner } from '../../../src/index.ts'
import { search } from '../research-assistant.ts'

export const aiSdkRunner = callableRunner(
  async ({ prompt }, ctx) => {
    const openai = createOpenAI({
      // Every model call goes through ctx.fetch: recorded, replayed, and in the trace with its usage.
      fetch: ctx.fetch,
      // A replay needs no key, but the provider insists on one.
      apiKey: process.env.OPENAI_API_KEY ?? 'replayed',
    })
    const { text } = await generateText({
      model: openai.chat('gpt-4.1-mini'),
      prompt,
      tools: {
        search: tool({
          description: 'Search the fact index',
          inputSchema: z.object({ query: z.string() }),
          execute: (input, { toolCallId }) =>
            ctx.toolCall('search', input, ({ query }) => search(query), { callId: toolCallId }),
        }),
      },
      stopWhen: stepCountIs(10),
      abortSignal: ctx.signal,
    })
    return text
  },
  { name: 'ai-sdk-researcher', config: { model: 'gpt-4.1-mini' } },
)
