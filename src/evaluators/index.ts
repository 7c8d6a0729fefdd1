export * from './deterministic/index.ts'
export * from './trace-checks/index.ts'
