export { datasetBenchmark, type DatasetBenchmark, type DatasetContext } from './adapter.ts'
export { DatasetOptions, type DatasetOptionsInput } from './options.ts'
export { GraderSpec, type GraderSpecInput } from './grader.ts'
export { DatasetTaskEntry } from './load.ts'
