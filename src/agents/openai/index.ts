export { openaiRunner, type OpenAIRunnerOptions } from './runner.ts'
export { openaiRunnerFromConfig, OpenAIRunnerConfig } from './from-config.ts'
export { chatTools } from './tool-loop.ts'
