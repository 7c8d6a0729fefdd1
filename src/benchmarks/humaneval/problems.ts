import { readFile } from 'node:fs/promises'
import { gunzipSync } from 'node:zlib'
import * as z from 'zod'
import { AgentEvalOpsError, sha256 } from '../../core/index.ts'

/** One problem as OpenAI's HumanEval.jsonl(.gz) has it. */
export const HumanEvalProblem = z.strictObject({
  task_id: z.string().min(1),
  prompt: z.string(),
  entry_point: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a Python identifier'),
  canonical_solution: z.string(),
  test: z.string(),
})
export type HumanEvalProblem = z.infer<typeof HumanEvalProblem>

export interface HumanEvalDataset {
  problems: HumanEvalProblem[]
  /** sha256 of the file's decompressed bytes: the same problems give the same checksum, gzip level aside. */
  checksum: string
}

/** Reads HumanEval.jsonl.gz (or an uncompressed .jsonl), refusing any line that is not a whole problem. */
export async function readHumanEval(path: string): Promise<HumanEvalDataset> {
  let raw: Buffer
  try {
    raw = await readFile(path)
  } catch (e) {
    throw new AgentEvalOpsError('DATASET_INVALID', `cannot read the HumanEval file ${path}`, {
      hint: "Point the benchmark's path option at HumanEval.jsonl.gz (OpenAI's human-eval repository, data/).",
      cause: e,
    })
  }
  let text: string
  try {
    text = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8')
  } catch (e) {
    throw new AgentEvalOpsError('DATASET_INVALID', `${path} is not a valid gzip file`, {
      hint: 'Download HumanEval.jsonl.gz again, or give the uncompressed .jsonl.',
      cause: e,
    })
  }
  const problems: HumanEvalProblem[] = []
  const seen = new Map<string, number>()
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line === '') continue
    const where = `${path}:${i + 1}`
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch (e) {
      throw invalid(where, `not JSON (${(e as Error).message})`)
    }
    const parsed = HumanEvalProblem.safeParse(json)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw invalid(where, `${issue?.path.join('.') || 'the line'}: ${issue?.message ?? 'invalid'}`)
    }
    const earlier = seen.get(parsed.data.task_id)
    if (earlier !== undefined)
      throw invalid(where, `task_id ${JSON.stringify(parsed.data.task_id)} repeats line ${earlier}`)
    seen.set(parsed.data.task_id, i + 1)
    problems.push(parsed.data)
  }
  if (problems.length === 0) throw invalid(path, 'it holds no problem')
  return { problems, checksum: sha256(text) }
}

function invalid(where: string, what: string): AgentEvalOpsError {
  return new AgentEvalOpsError('DATASET_INVALID', `${where}: ${what}`, {
    hint: 'Each line must be one HumanEval problem: task_id, prompt, entry_point, canonical_solution, test.',
  })
}
