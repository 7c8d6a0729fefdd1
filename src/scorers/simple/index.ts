export { simpleScorer } from './simple-scorer'
