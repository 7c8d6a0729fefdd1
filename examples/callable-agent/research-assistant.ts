// A small hand-written "research assistant": a model-driven loop that searches a fact index and uses a calculator,
// with no LLM behind it. The "model" is a rule-based stand-in that reports token counts like a real one, so the
// trace, the usage and the cost are what a real agent would leave. Only the ctx.* lines are about the harness.
//
// In your own project, import from the package instead: `import type { CallableContext } from 'agentevalops'`.
import type { CallableContext, CallableInput } from '../../src/agents/callable/index.ts'
import type { ToolSpec } from '../../src/core/index.ts'

/** A model in the price table, so the trial's cost is real list price for the (simulated) tokens. */
export const MODEL = 'claude-haiku-4-5'
const MAX_TURNS = 8

// ---------------------------------------------------------------------------------------------------------------
// The tools: plain functions, as an agent would have them without any harness.

interface Fact {
  /** How questions and queries name it (lower case). */
  entity: string
  name: string
  snippet: string
  metres: number
}

const FACTS: readonly Fact[] = [
  { entity: 'eiffel tower', name: 'Eiffel Tower', snippet: 'The Eiffel Tower is 330 m tall.', metres: 330 },
  {
    entity: 'statue of liberty',
    name: 'Statue of Liberty',
    snippet: 'The Statue of Liberty is 93 m tall, pedestal included.',
    metres: 93,
  },
  {
    entity: 'big ben',
    name: 'Big Ben',
    snippet: 'The Elizabeth Tower, home of Big Ben, is 96 m tall.',
    metres: 96,
  },
]

export interface SearchHit {
  snippet: string
  metres: number
}

export function search(query: string): SearchHit[] {
  const q = query.toLowerCase()
  return FACTS.filter((f) => q.includes(f.entity)).map(({ snippet, metres }) => ({ snippet, metres }))
}

/** `a <op> b` with + - * /; anything else is an error, as a real calculator tool would report it. */
export function calculator(expression: string): number {
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*([-+*/])\s*(-?\d+(?:\.\d+)?)\s*$/.exec(expression)
  if (!match) throw new Error(`cannot evaluate ${JSON.stringify(expression)}`)
  const [a, b] = [Number(match[1]), Number(match[3])]
  switch (match[2]) {
    case '+':
      return a + b
    case '-':
      return a - b
    case '*':
      return a * b
    default:
      return a / b
  }
}

/** The tools as a benchmark declares them, so the tool_use evaluator can check every call's arguments. */
export const TOOLS: ToolSpec[] = [
  {
    name: 'search',
    description: 'Finds facts about landmarks.',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
      additionalProperties: false,
    },
  },
  {
    name: 'calculator',
    description: 'Evaluates `a <op> b`.',
    inputSchema: {
      type: 'object',
      properties: { expression: { type: 'string' } },
      required: ['expression'],
      additionalProperties: false,
    },
  },
]

// ---------------------------------------------------------------------------------------------------------------
// The stand-in model: reads the question and what the agent has learnt so far, and picks the next action.

type Action =
  | { kind: 'search'; entity: string; query: string }
  | { kind: 'calculate'; expression: string }
  | { kind: 'answer'; text: string }

interface Reply {
  action: Action
  /** What a real model would have written: the trace's record of its reasoning. */
  text: string
  inputTokens: number
  outputTokens: number
}

interface Memory {
  question: string
  found: Map<string, number>
  result: number | undefined
  /** Everything said so far: the "prompt" grows with it, and so do the input tokens. */
  transcript: string[]
}

function decide(memory: Memory): Reply {
  const q = memory.question.toLowerCase()
  // In the order the question names them: "how much taller is A than B" is A - B.
  const wanted = FACTS.map((f) => f.entity)
    .filter((e) => q.includes(e))
    .sort((a, b) => q.indexOf(a) - q.indexOf(b))
  const missing = wanted.find((e) => !memory.found.has(e))
  let action: Action
  let text: string
  if (missing !== undefined) {
    action = { kind: 'search', entity: missing, query: `height of the ${missing}` }
    text = `I need the height of the ${FACTS.find((f) => f.entity === missing)?.name ?? missing}.`
  } else if (memory.result === undefined) {
    const [a, b] = wanted.map((e) => memory.found.get(e) ?? 0)
    const op = q.includes('taller') ? '-' : q.includes('divided by') ? '/' : '+'
    action = { kind: 'calculate', expression: `${a} ${op} ${b}` }
    text = `Now compute ${a} ${op} ${b}.`
  } else {
    const rounded = Math.round(memory.result * 100) / 100
    action = { kind: 'answer', text: String(rounded) }
    text = `The answer is ${rounded}.`
  }
  const prompt = [memory.question, ...memory.transcript].join('\n')
  return {
    action,
    text,
    // Roughly four characters a token, plus a fixed system prompt: plausible numbers, fully deterministic.
    inputTokens: 150 + Math.ceil(prompt.length / 4),
    outputTokens: 10 + Math.ceil(text.length / 4),
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The agent itself: this is the function that callableRunner wraps.

export async function researchAssistant(
  { prompt }: CallableInput,
  ctx: CallableContext,
): Promise<string | null> {
  ctx.plan('Search for each landmark the question names, compute with the calculator, then answer.')
  const memory: Memory = { question: prompt, found: new Map(), result: undefined, transcript: [] }

  for (let turn = 0; turn < MAX_TURNS; turn++) {
    // The wrapping form: the call is timed and recorded with its tokens (and priced) once it returns. The request
    // is what the model is sent: it keys the call, so AGENTEVALOPS_RECORD records it and replays it.
    const request = {
      messages: [{ role: 'user', content: [memory.question, ...memory.transcript].join('\n') }],
    }
    const reply = await ctx.modelCall({ model: MODEL, request }, async () => {
      const r = decide(memory)
      return {
        result: r,
        inputTokens: r.inputTokens,
        outputTokens: r.outputTokens,
        text: r.text,
        stopReason: r.action.kind === 'answer' ? 'end_turn' : 'tool_use',
      }
    })
    memory.transcript.push(reply.text)
    const { action } = reply

    if (action.kind === 'answer') return action.text
    if (action.kind === 'search') {
      const hits = await ctx.toolCall('search', { query: action.query }, (args) => search(args.query))
      const hit = hits[0]
      if (hit === undefined) return null
      ctx.observe(hit.snippet)
      memory.found.set(action.entity, hit.metres)
      memory.transcript.push(hit.snippet)
    } else {
      const value = await ctx.toolCall('calculator', { expression: action.expression }, (args) =>
        calculator(args.expression),
      )
      memory.result = value
      memory.transcript.push(`= ${value}`)
    }
  }
  return null
}
