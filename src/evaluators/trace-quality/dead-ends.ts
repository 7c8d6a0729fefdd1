import type { JsonValue, TraceEvent } from '../../core/index.ts'
import { NONE, type Detected, type TraceModel } from './model.ts'
import { stem } from './stem.ts'
import { walkJson, words } from './text.ts'
import { isWriteTool } from './writes.ts'

/**
 * Words that acknowledgements are made of ("File written successfully", {"status": "ok"}): an answer has no reason
 * to echo them, so they do not count as content a result could be ignored for.
 */
const ACK_WORDS = new Set([
  'success',
  'successful',
  'successfully',
  'done',
  'complete',
  'completed',
  'true',
  'false',
  'null',
  'none',
  'created',
  'updated',
  'deleted',
  'removed',
  'saved',
  'written',
  'wrote',
  'sent',
  'file',
  'status',
  'result',
  'results',
  'okay',
  'empty',
])

/** Compared as stems, as the words they are compared with are. */
const ACK_STEMS = new Set([...ACK_WORDS].map(stem))

/** A yes/no value: what it says is its key ({"insurance": "yes"} says "insurance"). */
const FLAGS = new Set(['yes', 'no', 'y', 'n'])
const isFlag = (v: JsonValue) =>
  typeof v === 'boolean' || (typeof v === 'string' && FLAGS.has(v.toLowerCase()))

/** Stems of a text's words, memoised: answers and results repeat the same words. */
function stemmer(): (text: string) => string[] {
  const seen = new Map<string, string>()
  return (text) =>
    words(text).map((w) => {
      let s = seen.get(w)
      if (s === undefined) {
        s = stem(w)
        seen.set(w, s)
      }
      return s
    })
}

/** A result needs this many distinct content words before ignoring it can be told apart from it saying little. */
const MIN_CONTENT_WORDS = 3

function resultWords(
  value: JsonValue,
  stems: (text: string) => string[],
): { all: Set<string>; content: number } {
  const all = new Set<string>()
  // Values only: key names ("temperature") would tie a result to an answer by its schema, not by its content;
  // except the key of a yes/no value, which is the content.
  walkJson(value, {
    onString: (s) => stems(s).forEach((w) => all.add(w)),
    onKey: (k, v) => {
      if (isFlag(v)) stems(k).forEach((w) => all.add(w))
    },
    onNumber: (n) => words(String(n)).forEach((w) => all.add(w)),
  })
  let content = 0
  for (const w of all) if (!ACK_STEMS.has(w)) content++
  return { all, content }
}

/** The text an agent writes itself, in which it would refer to what it learned. */
function agentText(e: TraceEvent): string | undefined {
  switch (e.kind) {
    case 'agent.model_call':
      return e.payload.text
    case 'agent.plan':
    case 'agent.observation':
      return e.payload.text
    case 'agent.final_answer':
      return e.payload.answer
    default:
      return undefined
  }
}

/**
 * Tool results the agent got and then answered without using. Conservative on purpose (a false alarm costs more
 * than a miss): only non-error results that arrived after the last tool call before the (last) final answer are
 * judged, only when they say something (at least MIN_CONTENT_WORDS distinct words of 4+ letters beyond
 * acknowledgement words), and only when not one of their words of 4+ letters appears in any later model-call text,
 * plan, observation or the final answer. Words are compared by their stems, so "cancelled" in a result is used by
 * an answer's "canceled". A result followed by more tool calls is not judged: the agent acted on something, and
 * which result drove it cannot be told from the trace. Neither is the successful result of a state-changing call
 * (see isWriteTool): it confirms that the write happened, and the agent has no reason to quote it.
 */
export function detectDeadEnds(m: TraceModel): Detected[] {
  const answer = m.answers.at(-1)
  if (!answer) return []
  let lastCallStep = -1
  for (let c = m.callCount - 1; c >= 0; c--) {
    if (m.callStep[c]! < answer.step) {
      lastCallStep = m.callStep[c]!
      break
    }
  }
  /** Step → result index, for the results judged. */
  const candidates = new Map<number, number>()
  for (let r = m.resultCount - 1; r >= 0 && m.resultStep[r]! > lastCallStep; r--) {
    if (
      m.resultStep[r]! < answer.step &&
      m.resultIsError[r] === 0 &&
      m.resultOrphan[r] === 0 &&
      !isWriteTool(m.resultTool[r]!)
    ) {
      candidates.set(m.resultStep[r]!, r)
    }
  }
  if (candidates.size === 0) return []

  const { events } = m
  const stems = stemmer()
  const detected: Detected[] = []
  const later = new Set<string>()
  let i = events.length - 1
  while (i >= 0 && events[i]!.step > answer.step) i--
  for (; i >= 0 && events[i]!.step > lastCallStep; i--) {
    const e = events[i]!
    const r = e.kind === 'agent.tool_result' ? candidates.get(e.step) : undefined
    if (r !== undefined) {
      const { all, content } = resultWords(m.resultValue[r]!, stems)
      let used = false
      for (const w of all) {
        if (later.has(w)) {
          used = true
          break
        }
      }
      if (!used && content >= MIN_CONTENT_WORDS) {
        const call = m.resultCall[r]!
        detected.push({
          type: 'dead_end',
          message:
            `result of "${m.resultTool[r]}" at step ${e.step} was never used: no later text refers to it ` +
            `and no tool call follows it before the final answer at step ${answer.step}`,
          citations: [e.step, answer.step],
          wastedCalls: call === NONE ? [] : [call],
        })
      }
      continue
    }
    const text = agentText(e)
    if (text !== undefined) for (const w of stems(text)) later.add(w)
  }
  return detected.reverse()
}
