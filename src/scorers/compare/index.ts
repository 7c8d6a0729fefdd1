export { compareToBaseline, type ComparedRun } from './compare-to-baseline.ts'
export { CompareOptions, resolveCompareSettings } from './options.ts'
export { checkComparable } from './comparable.ts'
