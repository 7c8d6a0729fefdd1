import { fileURLToPath } from 'node:url'

/** OpenAI's HumanEval as shared/ lays it beside the repository (MIT; CI has the same copy). */
export const HUMANEVAL_PATH = fileURLToPath(
  new URL('../../../shared/datasets/humaneval/HumanEval.jsonl.gz', import.meta.url),
)
