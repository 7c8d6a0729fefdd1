export type * from './contract.ts'
