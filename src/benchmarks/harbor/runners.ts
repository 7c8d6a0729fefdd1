import { rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { AgentEvalOpsError, type AgentRunner } from '../../core/index.ts'
import { commandEnv, runCommand } from '../../engine/index.ts'
import { agentTimeoutOf, SOLUTION_DIR, SOLVE_SCRIPT } from './task-folder.ts'
import { freshCopy, requireTrialPaths } from './workspace.ts'

export const HARBOR_ORACLE_RUNNER_ID = 'harbor-oracle'
export const NOOP_RUNNER_ID = 'noop'
/** How long solve.sh may run when neither the task's `[agent] timeout_sec` nor the trial's limits say. */
export const DEFAULT_ORACLE_TIMEOUT_SECONDS = 600
/** How much of solve.sh's output goes into the trace. */
const TRACE_TAIL_CHARS = 2000

function tail(text: string): string {
  return text.length > TRACE_TAIL_CHARS ? `…${text.slice(-TRACE_TAIL_CHARS)}` : text
}

/**
 * The reference agent: runs the task's `solution/solve.sh` with bash in the workspace, as Harbor's oracle agent
 * does. It checks that a task is solvable and that its tests accept a right answer. Its time is the task's
 * `[agent] timeout_sec` (else 600 s), bounded by the trial's maxWallSeconds; the engine's signal kills it early.
 * solve.sh runs from a copy of solution/ beside the workspace (`$SOLUTION_DIR`), removed when it is done.
 */
export function harborOracleRunner(): AgentRunner {
  return {
    runnerInfo: () => ({ name: HARBOR_ORACLE_RUNNER_ID, kind: 'oracle', config: {} }),
    async run(task, env, ctx) {
      const paths = await requireTrialPaths(env, HARBOR_ORACLE_RUNNER_ID)
      if (typeof env.taskDir !== 'string')
        throw new AgentEvalOpsError(
          'INFRA_FAILURE',
          `${HARBOR_ORACLE_RUNNER_ID}: the environment names no taskDir`,
        )
      const from = join(env.taskDir, SOLUTION_DIR)
      const hasScript = await stat(join(from, SOLVE_SCRIPT)).then(
        (s) => s.isFile(),
        () => false,
      )
      if (!hasScript)
        return {
          finalAnswer: null,
          success: false,
          error: `task ${task.id} has no ${SOLUTION_DIR}/${SOLVE_SCRIPT}`,
        }
      try {
        await freshCopy(from, paths.solution)
        const script = join(paths.solution, SOLVE_SCRIPT)
        const limit = ctx.limits.maxWallSeconds
        const own = agentTimeoutOf(task) ?? DEFAULT_ORACLE_TIMEOUT_SECONDS
        const seconds = limit === undefined ? own : Math.min(own, limit)
        ctx.emit('agent.tool_call', { tool: 'bash', args: { script: `${SOLUTION_DIR}/${SOLVE_SCRIPT}` } })
        const run = await runCommand(['bash', script], {
          cwd: paths.workdir,
          timeoutMs: Math.round(seconds * 1000),
          signal: ctx.signal,
          env: { ...commandEnv(), SOLUTION_DIR: paths.solution, WORKDIR: paths.workdir },
        })
        if (run.outcome === 'failed_to_start')
          throw new AgentEvalOpsError(
            'INFRA_FAILURE',
            `${HARBOR_ORACLE_RUNNER_ID}: could not run bash: ${run.error ?? ''}`,
            { hint: 'Install bash and make sure it is on PATH.' },
          )
        // Stopped by the engine (a limit, a cancel): it has already moved on and takes no more events.
        if (run.outcome === 'aborted') return { finalAnswer: null, success: false }
        const output = tail([run.stdoutTail, run.stderrTail].filter((s) => s !== '').join('\n'))
        const failed = run.outcome === 'timeout' || run.exitCode !== 0
        ctx.emit('agent.tool_result', {
          tool: 'bash',
          result: { outcome: run.outcome, exitCode: run.exitCode, output },
          isError: failed,
        })
        if (run.outcome === 'timeout')
          return {
            finalAnswer: null,
            success: false,
            error: `${SOLVE_SCRIPT} did not finish within ${seconds} s`,
          }
        const summary =
          run.exitCode === null
            ? `${SOLVE_SCRIPT} was killed by ${run.signal ?? 'a signal'}`
            : `${SOLVE_SCRIPT} exited with code ${run.exitCode}`
        ctx.emit('agent.final_answer', { answer: summary })
        return { finalAnswer: summary, success: run.exitCode === 0 }
      } finally {
        await rm(paths.solution, { recursive: true, force: true })
      }
    },
  }
}

/** The agent that does nothing: a task's tests must fail on the untouched workspace. */
export function harborNoopRunner(): AgentRunner {
  return {
    runnerInfo: () => ({ name: NOOP_RUNNER_ID, kind: 'noop', config: {} }),
    run: async () => ({ finalAnswer: null }),
  }
}
