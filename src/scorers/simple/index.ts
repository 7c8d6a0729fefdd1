export { simpleScorer } from './simple-scorer.ts'
