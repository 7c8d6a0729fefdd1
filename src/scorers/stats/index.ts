export { logGamma, logBeta, regularizedBeta, regularizedGammaP, regularizedGammaQ } from './special.ts'
export {
  studentTCdf,
  studentTQuantile,
  normalCdf,
  normalQuantile,
  binomialPmf,
  binomialCdf,
} from './distributions.ts'
export { mean, sampleVariance, standardDeviation, standardError, percentile } from './descriptive.ts'
export {
  type Interval,
  tInterval,
  wilsonInterval,
  clopperPearsonUpper,
  clusteredStandardError,
} from './intervals.ts'
export { seededRandom } from './random.ts'
export { type BootstrapOptions, bootstrapInterval } from './bootstrap.ts'
export { passAtK, passHatK } from './pass-at-k.ts'
export {
  type PermutationTestOptions,
  type PermutationTestResult,
  type DetectableEffectOptions,
  mcnemarExact,
  signTest,
  pairedPermutationTest,
  minimumDetectableEffect,
} from './paired-tests.ts'
