export type * from './contract.ts'
export * from './job/index.ts'
