export * from './simple/index.ts'
