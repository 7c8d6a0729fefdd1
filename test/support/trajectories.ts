import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { TraceEvent, type JsonValue, type TraceEventKind, type TracePayload } from '../../src/core/index.ts'

/**
 * Importers of public agent trajectories into our trace events, for the labelled corpus in
 * test/fixtures/trajectories/ (see its README for where each file comes from).
 */

/** One step of a SWE-agent `.traj` file: what the model thought, the command it ran, what the shell answered. */
const SweAgentStep = z.looseObject({
  thought: z.string().nullish(),
  action: z.string(),
  observation: z.string().nullish(),
})
export const SweAgentTrajectory = z.looseObject({
  trajectory: z.array(SweAgentStep).min(1),
  info: z.looseObject({ submission: z.string().nullish(), exit_status: z.string().nullish() }).optional(),
})
export type SweAgentTrajectory = z.infer<typeof SweAgentTrajectory>

/** A τ-bench message (OpenAI chat format): the system prompt, user turns, assistant turns with tool calls, tool results. */
const ChatMessage = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: z.string() }),
  z.looseObject({ role: z.literal('user'), content: z.string() }),
  z.looseObject({
    role: z.literal('assistant'),
    content: z.string().nullish(),
    tool_calls: z
      .array(
        z.looseObject({
          id: z.string(),
          function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
        }),
      )
      .nullish(),
  }),
  z.looseObject({
    role: z.literal('tool'),
    tool_call_id: z.string(),
    name: z.string().min(1),
    content: z.string(),
  }),
])
export const TauBenchTrajectory = z.looseObject({
  task_id: z.number().int(),
  trial: z.number().int(),
  reward: z.number(),
  traj: z.array(ChatMessage).min(1),
})
export type TauBenchTrajectory = z.infer<typeof TauBenchTrajectory>

/**
 * SWE-agent's own tools answer a malformed command with these (its linter's verdict on an edit, a usage line):
 * the agent-computer interface's way of saying the call failed. A script's traceback is the script's output, not a
 * failed call, so it is not among them.
 */
const SWE_AGENT_ERRORS = [
  'Your proposed edit has introduced new syntax error(s)',
  'Usage: ',
  'No such file or directory',
  'command not found',
]

const T0 = Date.parse('2024-01-01T00:00:00.000Z')

type Draft = { [K in TraceEventKind]: { kind: K; payload: TracePayload<K> } }[TraceEventKind]

function stamp(taskId: string, drafts: readonly Draft[]): TraceEvent[] {
  return drafts.map(
    (d, step) =>
      TraceEvent.parse({
        runId: 'run-corpus',
        taskId,
        trial: 0,
        step,
        ts: new Date(T0 + step * 1000).toISOString(),
        kind: d.kind,
        payload: d.payload,
        spanId: '00000000000000ab',
      }) as TraceEvent,
  )
}

/**
 * A SWE-agent trajectory: each step's thought is a plan, its action a call of the command's first word (SWE-agent's
 * tools are commands: `open`, `edit`, `submit`, or a shell program) with the whole command line as argument, the
 * observation that call's result. The submitted patch is the final answer.
 */
export function fromSweAgent(taskId: string, traj: SweAgentTrajectory): TraceEvent[] {
  const drafts: Draft[] = []
  for (const step of traj.trajectory) {
    if (step.thought) drafts.push({ kind: 'agent.plan', payload: { text: step.thought } })
    const command = step.action.trim()
    const tool = command.split(/\s+/, 1)[0] || 'bash'
    drafts.push({ kind: 'agent.tool_call', payload: { tool, args: { command } } })
    const observation = step.observation ?? ''
    const isError = SWE_AGENT_ERRORS.some((e) => observation.includes(e))
    drafts.push({
      kind: 'agent.tool_result',
      payload: { tool, result: observation, ...(isError ? { isError } : {}) },
    })
  }
  const submission = traj.info?.submission
  if (submission != null) drafts.push({ kind: 'agent.final_answer', payload: { answer: submission } })
  return stamp(taskId, drafts)
}

function parsedOrText(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue
  } catch {
    return text
  }
}

/**
 * A τ-bench conversation: user turns are observations, assistant text is a model call, tool calls and tool results
 * map one to one (arguments and results parsed from their JSON text; τ-bench tools report failure as a result
 * starting with "Error:"). The agent's last text reply is its final answer. The system prompt is left out.
 */
export function fromTauBench(taskId: string, traj: TauBenchTrajectory): TraceEvent[] {
  const drafts: Draft[] = []
  let lastReply = -1
  for (const m of traj.traj) {
    switch (m.role) {
      case 'system':
        break
      case 'user':
        drafts.push({ kind: 'agent.observation', payload: { text: m.content } })
        break
      case 'assistant':
        if (m.content) {
          if (!m.tool_calls?.length) lastReply = drafts.length
          drafts.push({ kind: 'agent.model_call', payload: { model: 'gpt-4o', text: m.content } })
        }
        for (const call of m.tool_calls ?? []) {
          drafts.push({
            kind: 'agent.tool_call',
            payload: {
              tool: call.function.name,
              args: parsedOrText(call.function.arguments),
              callId: call.id,
            },
          })
        }
        break
      case 'tool': {
        const isError = m.content.startsWith('Error:')
        drafts.push({
          kind: 'agent.tool_result',
          payload: {
            tool: m.name,
            callId: m.tool_call_id,
            result: parsedOrText(m.content),
            ...(isError ? { isError } : {}),
          },
        })
        break
      }
    }
  }
  const reply = drafts[lastReply]
  if (reply?.kind === 'agent.model_call' && reply.payload.text !== undefined) {
    drafts[lastReply] = { kind: 'agent.final_answer', payload: { answer: reply.payload.text } }
  }
  return stamp(taskId, drafts)
}

/** Reads a corpus file, checked against the format its name says (`.traj`: SWE-agent, `.json`: τ-bench). */
export function loadTrajectory(path: string): TraceEvent[] {
  const raw: unknown = JSON.parse(readFileSync(path, 'utf8'))
  const name = path.split('/').at(-1)!
  if (name.endsWith('.traj')) return fromSweAgent(name, SweAgentTrajectory.parse(raw))
  return fromTauBench(name, TauBenchTrajectory.parse(raw))
}
