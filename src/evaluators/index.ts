export * from './deterministic'
export * from './trace-checks'
