import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  humanEvalBenchmark,
  humanEvalEmptyRunner,
  humanEvalOracleRunner,
  humanEvalWeakRunner,
} from '../src/benchmarks/index.ts'
import { AgentEvalOpsError } from '../src/core/index.ts'
import { evalBenchmark } from '../plugin/index.ts'

// HumanEval graded the way upstream grades it: each answer is appended to its prompt, followed by the problem's
// tests and check(), and executed in a process of its own. The oracle (the canonical solutions) must pass all 164
// problems and the empty runner none, or the grader is wrong; the weak runner solves about 40 % and fails the rest in four different ways
// (wrong value, exception, syntax error, wrong whole function), each of which must be a failure, never an infra one.
const path =
  process.env.AGENTEVALOPS_HUMANEVAL_PATH ??
  fileURLToPath(new URL('../../shared/datasets/humaneval/HumanEval.jsonl.gz', import.meta.url))
if (!existsSync(path)) {
  throw new AgentEvalOpsError('DATASET_INVALID', `HumanEval is not at ${path}`, {
    hint: 'Set AGENTEVALOPS_HUMANEVAL_PATH to a copy of HumanEval.jsonl.gz (human-eval repository, data/).',
  })
}

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
