export * from './mock/index.ts'
export * from './anthropic/index.ts'
