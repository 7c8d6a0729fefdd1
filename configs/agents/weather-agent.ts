// A callable agent for configs/agent_callable.yaml: it calls the task's two tools through ctx.toolCall (so both land
// in the trace) and answers. A real one would call a model through ctx.fetch or traced(model) (docs/providers.md).
import type { CallableAgent } from 'agentevalops'

export const weatherAgent: CallableAgent = async (input, ctx) => {
  const city = /in (\w+)/.exec(input.prompt)?.[1] ?? 'Paris'
  const weather = await ctx.toolCall('get_weather', { city }, (args) => ({ city: args.city, celsius: 18 }))
  const { fahrenheit } = await ctx.toolCall('convert', { celsius: weather.celsius }, (args) => ({
    fahrenheit: (args.celsius * 9) / 5 + 32,
  }))
  return String(fahrenheit)
}
