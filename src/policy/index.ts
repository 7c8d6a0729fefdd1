export * from './basic/index.ts'
