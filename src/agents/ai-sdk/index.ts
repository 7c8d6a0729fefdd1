export { traced } from './traced.ts'
export { agentEvalOpsMiddleware } from './middleware.ts'
