export { createTraceScorer, monitorBenchmark, type TraceScorerOptions } from './trace-scorer.ts'
export { aggregateScores, AGGREGATIONS, ALL_EVALUATORS, createScoreAggregator } from './aggregate.ts'
export { scoreId } from './score-id.ts'
export { traceTrial, type TraceTrial, type TrialTarget } from './trace-trial.ts'
