import * as z from 'zod'
import { JsonValue } from './json.ts'

/**
 * A scripted agent's behaviour for one task: plain data, so benchmarks can ship the scripts that exercise them
 * and the mock runner can replay them without either importing the other.
 */
const StepCost = {
  tokens: z.number().int().nonnegative().optional(),
  costUsd: z.number().nonnegative().optional(),
  /** Simulated latency before the step is emitted. */
  delayMs: z.number().nonnegative().optional(),
}

export const ScriptStep = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('plan'), text: z.string(), ...StepCost }),
  z.object({
    kind: z.literal('model_call'),
    text: z.string().optional(),
    model: z.string().optional(),
    ...StepCost,
  }),
  z.object({
    kind: z.literal('tool_call'),
    tool: z.string().min(1),
    args: JsonValue.default({}),
    ...StepCost,
  }),
  z.object({
    kind: z.literal('tool_result'),
    tool: z.string().min(1),
    result: JsonValue,
    isError: z.boolean().optional(),
    ...StepCost,
  }),
  z.object({ kind: z.literal('observation'), text: z.string(), ...StepCost }),
  z.object({ kind: z.literal('final_answer'), answer: z.string(), ...StepCost }),
  /**
   * The agent writes a file into its workspace (`env.workdir`): recorded as a `write_file` tool call and result,
   * and really written, so state-based evaluators have something real to judge.
   */
  z.object({ kind: z.literal('write_file'), path: z.string().min(1), content: z.string(), ...StepCost }),
  /** The agent fails in its own logic: the runner throws this message. */
  z.object({ kind: z.literal('throw'), message: z.string(), ...StepCost }),
])
export type ScriptStep = z.infer<typeof ScriptStep>

export const AgentScript = z.object({
  steps: z.array(ScriptStep),
  /** Defaults to true when the script reaches a final answer. */
  success: z.boolean().optional(),
})
export type AgentScript = z.infer<typeof AgentScript>
