export * from './mock/index.ts'
