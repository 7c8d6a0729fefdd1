import { appendFileSync } from 'node:fs'
import {
  AgentEvalOpsError,
  AgentScript,
  checksumOf,
  sha256,
  type AgentOutput,
  type AgentRunner,
  type RunContext,
  type RunnerInfo,
  type TaskSpec,
} from '../../core/index.ts'
import { abortableSleep } from './abortable-sleep.ts'
import { replayStep } from './replay-step.ts'
import { writeWorkspaceFile } from './write-file.ts'

export interface MockRunnerOptions {
  /** A script per task id, or a function that writes one for any task. */
  scripts: Record<string, AgentScript> | ((task: TaskSpec) => AgentScript)
  name?: string
  /** Latency of steps that set no `delayMs` of their own. */
  defaultDelayMs?: number
  /**
   * A file that gets one line (the task id) each time a trial starts: which trials really ran, e.g. to check that
   * a resumed run skipped the ones it took over. Not part of the runner's config (it changes no result).
   */
  callLog?: string
}

/**
 * A scripted agent: replays plain-data scripts step by step, with their latency, tokens and cost, through the
 * same RunContext a real agent uses. Deterministic, free, and able to hit every outcome on purpose.
 */
export function mockRunner(options: MockRunnerOptions): AgentRunner {
  const { scripts, name = 'mock-scripted', defaultDelayMs = 0 } = options
  // Fixed scripts are checked up front so a typo fails at definition, not one trial at a time.
  const fixed = typeof scripts === 'function' ? null : validateAll(scripts)

  // The scripts are what its trials do: two runners with other scripts must not describe themselves the same
  // (a resume would take over trials the new scripts play differently). A function is known by its source only;
  // what it closes over is not seen, so one that reads outside values should be named apart by its `name`.
  const scriptsSha256 = typeof scripts === 'function' ? sha256(scripts.toString()) : checksumOf(fixed)
  const scriptFor = (task: TaskSpec): AgentScript => {
    if (fixed) {
      const script = Object.hasOwn(fixed, task.id) ? fixed[task.id] : undefined
      if (script) return script
      const known = Object.keys(fixed)
      throw new AgentEvalOpsError(
        'INFRA_FAILURE',
        `mockRunner has no script for task ${JSON.stringify(task.id)}`,
        {
          hint: `Add one to its scripts (it has ${known.length === 0 ? 'none' : known.map((k) => JSON.stringify(k)).join(', ')}).`,
        },
      )
    }
    return validate((scripts as (task: TaskSpec) => AgentScript)(task), task.id, 'INFRA_FAILURE')
  }

  return {
    runnerInfo: (): RunnerInfo => ({ name, kind: 'mock', config: { defaultDelayMs, scriptsSha256 } }),
    async run(task: TaskSpec, env, ctx: RunContext): Promise<AgentOutput> {
      // Synchronous: a line per started trial, even when the process is killed right after.
      if (options.callLog) appendFileSync(options.callLog, `${task.id}\n`)
      const script = scriptFor(task)
      let finalAnswer: string | null = null
      for (const step of script.steps) {
        const delayMs = step.delayMs ?? defaultDelayMs
        if (delayMs > 0) await abortableSleep(delayMs, ctx.signal)
        else ctx.signal.throwIfAborted()
        if (step.kind === 'write_file') await writeWorkspaceFile(step, env, ctx)
        else finalAnswer = replayStep(step, ctx) ?? finalAnswer
      }
      return { finalAnswer, success: script.success ?? finalAnswer !== null }
    },
  }
}

function validateAll(scripts: Record<string, AgentScript>): Record<string, AgentScript> {
  return Object.fromEntries(
    Object.entries(scripts).map(([taskId, script]) => [taskId, validate(script, taskId, 'CONFIG_INVALID')]),
  )
}

function validate(script: unknown, taskId: string, code: 'CONFIG_INVALID' | 'INFRA_FAILURE'): AgentScript {
  const parsed = AgentScript.safeParse(script)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  throw new AgentEvalOpsError(
    code,
    `mockRunner: the script for task ${JSON.stringify(taskId)} is invalid: ${issue ? `${issue.path.join('.')}: ${issue.message}` : ''}`,
  )
}
