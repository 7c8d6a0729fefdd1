export * from './summary/index.ts'
export * from './compare/index.ts'
// Everything of the math but its Interval type, which core's zod schema of the same shape already names.
export {
  bootstrapInterval,
  clusteredStandardError,
  mcnemarExact,
  mean,
  minimumDetectableEffect,
  normalCdf,
  normalQuantile,
  pairedPermutationTest,
  passAtK,
  passHatK,
  percentile,
  sampleVariance,
  seededRandom,
  signTest,
  standardDeviation,
  standardError,
  studentTCdf,
  studentTQuantile,
  tInterval,
  wilsonInterval,
} from './stats/index.ts'
