export * from './mock/index.ts'
export * from './anthropic/index.ts'
export * from './callable/index.ts'
export * from './command/index.ts'
