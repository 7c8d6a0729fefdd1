export { compareToBaseline, type ComparedRun, type ComparedTrial } from './compare-to-baseline.ts'
export { CompareOptions, resolveCompareSettings } from './options.ts'
export { checkComparable } from './comparable.ts'
