export type * from './contract.ts'
export * from './amp/index.ts'
export * from './scoring/index.ts'
