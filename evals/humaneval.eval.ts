import {
  humanEvalBenchmark,
  humanEvalEmptyRunner,
  humanEvalOracleRunner,
  humanEvalWeakRunner,
} from '../src/benchmarks/index.ts'
import { evalBenchmark } from '../plugin/index.ts'

// HumanEval graded the way upstream grades it: each answer is appended to its prompt, followed by the problem's
// tests and check(), and executed in a process of its own. The oracle (the canonical solutions) must pass all 164
// problems and the empty runner none, or the grader is wrong; the weak runner solves about 40 % and fails the rest in four different ways
// (wrong value, exception, syntax error, wrong whole function), each of which must be a failure, never an infra one.
// The dataset is the copy the package ships (datasets/humaneval/); AGENTEVALOPS_HUMANEVAL_PATH points at another.
const path = process.env.AGENTEVALOPS_HUMANEVAL_PATH

evalBenchmark({
  benchmark: humanEvalBenchmark({ path }),
  runner: humanEvalOracleRunner(),
  assert: ({ record }, expect) => expect(record.scores[0]?.evaluatorId).toBe('humaneval-grade'),
})

evalBenchmark({
  benchmark: humanEvalBenchmark({ path, id: 'humaneval@empty' }),
  runner: humanEvalEmptyRunner(),
  gate: { minPassRate: 0 },
  assert: ({ record }, expect) => expect(record.outcome).toBe('failed'),
})

evalBenchmark({
  benchmark: humanEvalBenchmark({ path, id: 'humaneval@weak' }),
  runner: humanEvalWeakRunner(),
  gate: { minPassRate: 0.3 },
  assert: ({ record }, expect) => expect(['passed', 'failed']).toContain(record.outcome),
})
