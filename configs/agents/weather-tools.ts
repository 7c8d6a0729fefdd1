// The handlers of the weather task's tools, for the model runners of configs/agent_anthropic.yaml and
// configs/agent_openai.yaml (`tools: { module: ./agents/weather-tools.ts, export: tools }`).
import type { ToolHandler } from 'agentevalops'

export const tools: Record<string, ToolHandler> = {
  get_weather: (input) => ({ city: (input as { city: string }).city, celsius: 18 }),
  convert: (input) => ({ fahrenheit: ((input as { celsius: number }).celsius * 9) / 5 + 32 }),
}
