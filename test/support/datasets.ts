import { fileURLToPath } from 'node:url'

/** OpenAI's HumanEval as the repository ships it (MIT, datasets/humaneval/LICENSE). */
export const HUMANEVAL_PATH = fileURLToPath(
  new URL('../../datasets/humaneval/HumanEval.jsonl.gz', import.meta.url),
)
