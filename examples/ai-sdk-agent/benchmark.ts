// One question that takes the agent three model calls: look the height up, convert it, answer.
import { checksumOf, defineTask, type BenchmarkAdapter, type TaskSpec } from '../../src/core/index.ts'

const BENCHMARK_ID = 'landmark-feet'

export const tasks: TaskSpec[] = [
  defineTask({
    id: 'eiffel-feet',
    benchmark: BENCHMARK_ID,
    prompt: 'How tall is the Eiffel Tower, in feet?',
    expected: '1083',
  }),
]

export const landmarkFeet: BenchmarkAdapter = {
  id: BENCHMARK_ID,
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: BENCHMARK_ID, version: '1', datasetChecksum: checksumOf(tasks.map((t) => t.checksum)) }),
}
