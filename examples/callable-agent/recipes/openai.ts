import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import { callableRunner } from '../../../src/index.ts'
import { search } from '../research-assistant.ts'

const tools: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'search',
      description: 'Search the fact index',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
]

export const openAiRunner = callableRunner(
  async ({ prompt }, ctx) => {
    // Every model call goes through ctx.fetch: recorded, replayed, and in the trace with its usage.
    // A replay needs no key, but the client insists on one.
    const client = new OpenAI({ fetch: ctx.fetch, apiKey: process.env.OPENAI_API_KEY ?? 'replayed' })
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: prompt }]
    for (let turn = 0; turn < 10; turn++) {
      const stream = client.chat.completions.stream(
        { model: 'gpt-4.1-mini', messages, tools, stream_options: { include_usage: true } },
        { signal: ctx.signal },
      )
      const message = (await stream.finalChatCompletion()).choices[0]?.message
      if (!message) return null
      messages.push(message)
      const calls = (message.tool_calls ?? []).filter((call) => call.type === 'function')
      if (calls.length === 0) return message.content
      for (const call of calls) {
        const args = JSON.parse(call.function.arguments) as { query: string }
        const hits = await ctx.toolCall(call.function.name, args, ({ query }) => search(query), {
          callId: call.id,
        })
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(hits) })
      }
    }
    return null
  },
  { name: 'openai-researcher', config: { model: 'gpt-4.1-mini' } },
)
