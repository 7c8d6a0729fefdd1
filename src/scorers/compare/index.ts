export { compareToBaseline, type ComparedRun } from './compare-to-baseline.ts'
export { CompareOptions, resolveCompareSettings } from './options.ts'
export { checkComparable } from './comparable.ts'
export {
  compareWindows,
  type WindowComparison,
  type WindowMetric,
  type WindowVerdict,
} from './window-comparison.ts'
