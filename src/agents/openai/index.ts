export { openaiRunner, type OpenAIRunnerOptions } from './runner.ts'
export { chatTools } from './tool-loop.ts'
