export type * from './contract.ts'
export * from './scoring/index.ts'
