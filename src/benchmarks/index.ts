export * from './toy/index.ts'
