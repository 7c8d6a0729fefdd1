// A tiny inline benchmark for the research assistant: three questions whose answers need two searches and a sum.
import { checksumOf, defineTask, type BenchmarkAdapter, type TaskSpec } from '../../src/core/index.ts'
import { TOOLS } from './research-assistant.ts'

const BENCHMARK_ID = 'landmark-heights'

export const tasks: TaskSpec[] = [
  defineTask({
    id: 'taller',
    benchmark: BENCHMARK_ID,
    prompt: 'How much taller is the Eiffel Tower than the Statue of Liberty, in metres?',
    expected: '237',
    tools: TOOLS,
  }),
  defineTask({
    id: 'combined',
    benchmark: BENCHMARK_ID,
    prompt: 'What is the combined height of the Eiffel Tower and Big Ben, in metres?',
    expected: '426',
    tools: TOOLS,
  }),
  defineTask({
    id: 'ratio',
    benchmark: BENCHMARK_ID,
    prompt: 'What is the height of the Eiffel Tower divided by the height of the Statue of Liberty?',
    // A numeric answer within a tolerance: the agent rounds to two decimals.
    expected: { number: 330 / 93, tolerance: 0.01 },
    tools: TOOLS,
  }),
]

export const landmarkHeights: BenchmarkAdapter = {
  id: BENCHMARK_ID,
  version: '1',
  listTasks: () => tasks,
  info: () => ({ id: BENCHMARK_ID, version: '1', datasetChecksum: checksumOf(tasks.map((t) => t.checksum)) }),
}
