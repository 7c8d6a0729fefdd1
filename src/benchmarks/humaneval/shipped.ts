import { join } from 'node:path'
import { AgentEvalOpsError, ownPackage } from '../../core/index.ts'

/**
 * The HumanEval copy the package ships (datasets/humaneval/, MIT, with OpenAI's licence beside it), so that
 * `humanEvalBenchmark()` needs no download. Absolute: the path is read later, from whatever folder the run is in.
 */
export function shippedHumanEvalPath(): string {
  const own = ownPackage()
  if (!own) {
    throw new AgentEvalOpsError(
      'DATASET_INVALID',
      "the HumanEval copy agentevalops ships was not found: this module is outside the package's folder",
      {
        hint: "Give the benchmark's path option (HumanEval.jsonl.gz from OpenAI's human-eval repository, data/).",
      },
    )
  }
  return join(own.root, 'datasets', 'humaneval', 'HumanEval.jsonl.gz')
}
