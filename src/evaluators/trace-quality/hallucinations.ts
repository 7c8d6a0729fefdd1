import type { EvaluatorFinding, JsonValue, TraceEvent } from '../../core/index.ts'
import { formatSteps, type CheckResult } from '../trace-checks/result.ts'
import { ascending, buildModel, checkOf, type Detected, type TraceModel } from './model.ts'
import { numbersIn, roundings, statedNumbers, walkJson, type StatedNumber } from './text.ts'

/**
 * The ways a final answer attributes something to a tool, matched case-insensitively within one sentence.
 * `{tool}` is the tool's name, optionally in backticks and optionally followed by "()" and/or the word "tool"
 * ("the `search` tool returned"). What the claim says is read from the rest of the sentence after the match.
 * Add forms here, and nowhere else.
 */
export const TOOL_CLAIM_PATTERNS: readonly { readonly form: string; readonly pattern: string }[] = [
  { form: '<tool> returned X', pattern: '{tool}\\s+(?:returned|returns|responded with|came back with)\\b' },
  { form: 'according to <tool>', pattern: '\\baccording to\\s+(?:the\\s+)?{tool}' },
  {
    form: 'result of <tool>',
    pattern: '\\b(?:results?|outputs?|response)\\s+(?:of|from)\\s+(?:the\\s+)?{tool}',
  },
  {
    form: '<tool> said/shows/reported',
    pattern: '{tool}\\s+(?:said|says|shows|showed|reported|reports|indicates|indicated)\\b',
  },
]

const TOOL_NAME =
  '(?<![\\w`])(?<open>`)?(?<name>[A-Za-z_]\\w*(?:[.:/-]\\w+)*)(?<close>`)?(?<parens>\\(\\))?(?<suffix>\\s+tool\\b)?'
const CLAIMS = TOOL_CLAIM_PATTERNS.map((p) => new RegExp(p.pattern.replace('{tool}', TOOL_NAME), 'gi'))

/** Sentence ends: . ! ? before whitespace (so 72.5 stays whole), or a line break. */
const SENTENCE_END = /(?<=[.!?])\s+|\n+/
const QUOTED = /"([^"\n]{1,200})"|“([^”\n]{1,200})”/g

interface Claim {
  tool: string
  excerpt: string
  quoted: string[]
  numbers: StatedNumber[]
}

/** What the results of one tool said: their text (lower case) and every number in them, with its roundings. */
interface Evidence {
  text: string
  numbers: Set<number>
}

function evidenceOf(values: readonly JsonValue[]): Evidence {
  const parts: string[] = []
  const numbers = new Set<number>()
  for (const value of values) {
    walkJson(value, {
      onString: (s) => {
        parts.push(s.toLowerCase())
        for (const n of numbersIn(s)) for (const r of roundings(n)) numbers.add(r)
      },
      onNumber: (n) => {
        parts.push(String(n))
        for (const r of roundings(n)) numbers.add(r)
      },
      onKey: (k) => parts.push(k.toLowerCase()),
      onArray: (n) => numbers.add(n),
    })
  }
  return { text: parts.join('\n'), numbers }
}

/**
 * Which tool a claim names, or undefined when the name is probably plain English ("according to Wikipedia", "it
 * returned"). A name counts when a tool of that name occurs in the trace (any case), or when it is written the way
 * only an identifier is: snake_case, in backticks, with "()" or followed by "tool". CamelCase and dotted names are
 * not enough on their own: brand names (GitHub) and abbreviations (U.S.) look like that too.
 */
function toolOf(
  groups: Record<string, string | undefined>,
  known: ReadonlyMap<string, string>,
): string | undefined {
  const name = groups.name!
  const found = known.get(name) ?? known.get(name.toLowerCase())
  if (found !== undefined) return found
  const identifier =
    (groups.open !== undefined && groups.close !== undefined) ||
    groups.parens !== undefined ||
    groups.suffix !== undefined ||
    name.includes('_')
  return identifier ? name : undefined
}

function claimsIn(answer: string, known: ReadonlyMap<string, string>): Claim[] {
  const claims: Claim[] = []
  for (const sentence of answer.split(SENTENCE_END)) {
    for (const re of CLAIMS) {
      for (const m of sentence.matchAll(re)) {
        const tool = toolOf(m.groups ?? {}, known)
        if (tool === undefined) continue
        const rest = sentence.slice(m.index + m[0].length)
        const quoted: string[] = []
        for (const q of rest.matchAll(QUOTED)) {
          const text = (q[1] ?? q[2] ?? '').trim()
          if (text) quoted.push(text)
        }
        claims.push({
          tool,
          excerpt: m[0],
          quoted,
          numbers: statedNumbers(rest.replace(QUOTED, ' ')),
        })
      }
    }
  }
  return claims
}

function listOf<T>(map: Map<string, T[]>, key: string): T[] {
  let list = map.get(key)
  if (!list) map.set(key, (list = []))
  return list
}

function describeValues(claim: Claim): string {
  return [...claim.quoted.map((q) => JSON.stringify(q)), ...claim.numbers.map((n) => n.text)].join(', ')
}

/**
 * Outputs the trace says exist but that never happened.
 *
 * 1. A tool result with nothing to answer (see TraceModel: an orphan).
 * 2. A final-answer claim in one of the TOOL_CLAIM_PATTERNS forms whose tool was never called before the answer.
 * 3. Such a claim about a tool that was called, where the rest of the sentence states values ("…" strings,
 *    numbers) and none of them appears in any result of that tool before the answer. Leniently: one grounded value
 *    is enough (numbers an agent derives from a result, a sum or a conversion, would otherwise read as invented),
 *    quotes match case-insensitively anywhere in a result, a number matches a result's number rounded to 0-2
 *    decimals or the length of a list, and "50%" matches 0.5 too. A claim with no values to check is not judged.
 *
 * One finding per answer and tool, citing the answer and the tool's calls.
 */
export function detectHallucinations(m: TraceModel): Detected[] {
  const detected: Detected[] = []
  for (let r = 0; r < m.resultCount; r++) {
    if (m.resultOrphan[r] === 0) continue
    const [tool, step, callId] = [m.resultTool[r]!, m.resultStep[r]!, m.resultCallId[r]]
    const message =
      callId !== undefined
        ? `tool_result of "${tool}" at step ${step} has callId "${callId}", but no earlier call of "${tool}" has that callId`
        : `tool_result of "${tool}" at step ${step} has no preceding tool_call of "${tool}"`
    detected.push({ type: 'hallucinated_tool_result', message, citations: [step], wastedCalls: [] })
  }
  if (m.answers.length === 0) return detected

  const known = new Map<string, string>()
  for (const tool of m.tools) {
    known.set(tool, tool)
    if (!known.has(tool.toLowerCase())) known.set(tool.toLowerCase(), tool)
  }
  const claims = m.answers.map((a) => claimsIn(a.payload.answer, known))
  // Only the tools the answers name are looked up: most answers cite none, and a long trace is not walked for them.
  const named = new Set(claims.flat().map((c) => c.tool))
  if (named.size === 0) return detected
  const callSteps = new Map<string, number[]>()
  for (let c = 0; c < m.callCount; c++)
    if (named.has(m.callTool[c]!)) listOf(callSteps, m.callTool[c]!).push(m.callStep[c]!)
  const resultsOf = new Map<string, number[]>()
  for (let r = 0; r < m.resultCount; r++)
    if (named.has(m.resultTool[r]!)) listOf(resultsOf, m.resultTool[r]!).push(r)

  m.answers.forEach((answer, i) => {
    const reported = new Set<string>()
    const evidence = new Map<string, Evidence>()
    for (const claim of claims[i]!) {
      if (reported.has(claim.tool)) continue
      const calls = (callSteps.get(claim.tool) ?? []).filter((s) => s < answer.step)
      if (calls.length === 0) {
        reported.add(claim.tool)
        detected.push({
          type: 'hallucinated_tool_result',
          message: `final answer (step ${answer.step}) cites "${claim.tool}" ("${claim.excerpt}"), but "${claim.tool}" was never called before it`,
          citations: [answer.step],
          wastedCalls: [],
        })
        continue
      }
      if (claim.quoted.length === 0 && claim.numbers.length === 0) continue
      let seen = evidence.get(claim.tool)
      if (!seen) {
        const before = (resultsOf.get(claim.tool) ?? []).filter((r) => m.resultStep[r]! < answer.step)
        evidence.set(claim.tool, (seen = evidenceOf(before.map((r) => m.resultValue[r]!))))
      }
      const grounded =
        claim.quoted.some((q) => seen.text.includes(q.toLowerCase())) ||
        claim.numbers.some((n) => n.values.some((v) => seen.numbers.has(v)))
      if (grounded) continue
      reported.add(claim.tool)
      const values = describeValues(claim)
      const many = claim.quoted.length + claim.numbers.length > 1
      detected.push({
        type: 'hallucinated_tool_result',
        message:
          `final answer (step ${answer.step}) attributes ${values} to "${claim.tool}" ("${claim.excerpt}"), but no ` +
          `result of "${claim.tool}" (called at ${formatSteps(calls)}) contains ${many ? 'any of them' : 'it'}`,
        citations: [...calls, answer.step].sort(ascending),
        wastedCalls: [],
      })
    }
  })
  return detected
}

/**
 * Fails when the trace claims a tool output that never occurred: a tool result without a call, or a final answer
 * citing a tool that was not called or values none of its results contain (see detectHallucinations).
 */
export function findHallucinatedToolResults(
  events: readonly TraceEvent[],
): CheckResult & { findings: EvaluatorFinding[] } {
  return checkOf(
    detectHallucinations(buildModel(events)),
    'every tool result follows a call of its tool, and every tool output the final answer cites occurred',
  )
}
