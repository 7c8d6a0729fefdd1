import {
  AgentEvalOpsError,
  type Evaluator,
  type EvaluatorOutput,
  type TaskSpec,
  type ToolSpec,
} from '../../core/index.ts'
import { ofKind } from '../trace-checks/result.ts'
import type { ArgMatcher } from './arg-matchers.ts'
import { countOf, uniqueSorted } from './findings.ts'
import {
  checkTrajectory,
  ReferenceTrajectory,
  validateTrajectoryOptions,
  type ReferenceCall,
  type TrajectoryMode,
} from './trajectory.ts'
import { checkValidToolCalls, compileToolSchemas } from './validate-calls.ts'

export interface ToolUseOptions {
  id?: string
  /** The tool definitions to check calls against; otherwise the task's `tools`. */
  tools?: ToolSpec[]
}

/**
 * Checks every tool call against the tool definitions (see checkValidToolCalls). Score: valid calls / all calls
 * (1 without calls); passes when nothing was found. Without any definitions there is nothing to check against, which
 * is not the agent's fault: score 1.
 */
export function toolUse(options: ToolUseOptions = {}): Evaluator {
  const id = options.id ?? 'tool-use'
  // Broken definitions given here are a config error now, before any trial runs.
  if (options.tools) compileToolSchemas(options.tools)
  return {
    id,
    kind: 'tool_use',
    evaluate(view): EvaluatorOutput {
      const tools = options.tools ?? view.task.tools ?? []
      const calls = ofKind(view.events, 'agent.tool_call')
      if (tools.length === 0) {
        return {
          score: 1,
          passed: true,
          costUsd: 0,
          explanation: 'no tool definitions to check against',
          citations: [],
          findings: [],
        }
      }
      const check = checkValidToolCalls(view.events, tools)
      const invalid = check.pass ? 0 : check.steps.length
      const score = calls.length === 0 ? 1 : (calls.length - invalid) / calls.length
      const explanation = check.pass
        ? check.message
        : `${invalid} of ${countOf(calls.length, 'tool call')} invalid: ${check.message}`
      return {
        score,
        passed: check.pass,
        costUsd: 0,
        explanation,
        citations: check.steps,
        findings: check.findings,
      }
    },
  }
}

export interface TrajectoryMatchOptions {
  id?: string
  /** The expected calls; otherwise the task's `metadata.reference_trajectory` (an array of { tool, args? }). */
  reference?: ReferenceCall[]
  /** How the calls must relate to the reference (default `exact`): see TrajectoryMode. */
  mode?: TrajectoryMode
  /** Argument matcher per tool name (default: exact, when the reference gives arguments). */
  args?: Record<string, ArgMatcher>
  /**
   * `true` (default): a task without a reference is a configuration error. `false`: such a task scores 1 with
   * "no reference trajectory", for datasets where only some tasks have one.
   */
  requireReference?: boolean
}

const REFERENCE_HINT =
  'Give metadata.reference_trajectory as an array of { tool: string, args?: JSON value }, or pass `reference` to trajectoryMatch().'

/** Parses a reference trajectory from configuration; `what` names it in the error (the task, or the options). */
function parseReference(raw: unknown, what: string): ReferenceCall[] {
  const parsed = ReferenceTrajectory.safeParse(raw)
  if (parsed.success) return parsed.data
  const issues = parsed.error.issues
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`)
    .join('; ')
  throw new AgentEvalOpsError('CONFIG_INVALID', `${what} is invalid (${issues})`, { hint: REFERENCE_HINT })
}

function referenceOf(task: TaskSpec, evaluatorId: string, required: boolean): ReferenceCall[] | undefined {
  const raw = task.metadata.reference_trajectory
  if (raw === undefined) {
    if (!required) return undefined
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `evaluator "${evaluatorId}": task ${JSON.stringify(task.id)} has no metadata.reference_trajectory`,
      { hint: REFERENCE_HINT },
    )
  }
  return parseReference(raw, `task ${JSON.stringify(task.id)}: metadata.reference_trajectory`)
}

/**
 * Compares the tool calls with a reference trajectory (see checkTrajectory). Score: 1 or 0 for `exact`, else the
 * matched share per mode (matched / max(|reference|, |calls|) for `unordered`, / |reference| for `contains`,
 * / |calls| for `within`); passes only when the mode holds.
 */
export function trajectoryMatch(options: TrajectoryMatchOptions = {}): Evaluator {
  const id = options.id ?? 'trajectory-match'
  validateTrajectoryOptions(`trajectoryMatch("${id}")`, options)
  const fixed =
    options.reference === undefined
      ? undefined
      : parseReference(options.reference, `trajectoryMatch("${id}"): reference`)
  const mode = options.mode ?? 'exact'
  return {
    id,
    kind: 'tool_use',
    evaluate(view): EvaluatorOutput {
      const reference = fixed ?? referenceOf(view.task, id, options.requireReference ?? true)
      if (reference === undefined) {
        return {
          score: 1,
          passed: true,
          explanation: 'no reference trajectory for this task: nothing to compare',
        }
      }
      const check = checkTrajectory(view.events, reference, { mode, args: options.args })
      return {
        score: check.score,
        passed: check.pass,
        costUsd: 0,
        explanation: check.message,
        citations: uniqueSorted(check.steps),
        findings: check.findings,
      }
    },
  }
}
