import * as z from 'zod'

/** What the judge model must answer with. */
export const JudgeVerdict = z.object({
  score: z.number().min(0).max(1),
  passed: z.boolean(),
  reasoning: z.string(),
  citations: z.array(z.number().int().nonnegative()),
})
export type JudgeVerdict = z.infer<typeof JudgeVerdict>

export type VerdictParse = { ok: true; verdict: JudgeVerdict } | { ok: false; problem: string }

/**
 * Reads a verdict out of the model's text: the whole text, a ```json fenced block, or the span from the first `{`
 * to the last `}` (models sometimes add a sentence around the object). Citations must be steps of the trace: a
 * judge that cites steps that do not exist has not read the transcript, so its verdict is not trusted.
 */
export function parseVerdict(text: string, traceSteps: ReadonlySet<number>): VerdictParse {
  if (text.trim() === '') return { ok: false, problem: 'the reply has no text' }
  const json = extractJsonObject(text)
  if (json === undefined) return { ok: false, problem: `no JSON object found in ${excerpt(text)}` }
  const parsed = JudgeVerdict.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : ''
    return { ok: false, problem: `the JSON is not a verdict (${where}${issue?.message ?? 'invalid'})` }
  }
  const unknown = parsed.data.citations.filter((s) => !traceSteps.has(s))
  if (unknown.length > 0)
    return { ok: false, problem: `it cites step(s) ${unknown.join(', ')}, which are not in the transcript` }
  const citations = [...new Set(parsed.data.citations)].sort((a, b) => a - b)
  return { ok: true, verdict: { ...parsed.data, citations } }
}

function extractJsonObject(text: string): unknown {
  const candidates: string[] = []
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)
  if (fenced?.[1] !== undefined) candidates.push(fenced[1])
  candidates.push(text)
  const start = text.indexOf('{')
  const end = text.lastIndexOf('}')
  if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1))
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate.trim())
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value
    } catch {
      // Not this candidate; try the next.
    }
  }
  return undefined
}

function excerpt(text: string): string {
  const oneLine = text.trim().replace(/\s+/g, ' ')
  return JSON.stringify(oneLine.length > 80 ? `${oneLine.slice(0, 80)}…` : oneLine)
}
