export { mockRunner, type MockRunnerOptions } from './mock-runner.ts'
