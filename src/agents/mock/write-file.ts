import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve } from 'node:path'
import type { EnvHandle, RunContext, ScriptStep } from '../../core/index.ts'

type WriteFileStep = Extract<ScriptStep, { kind: 'write_file' }>

/**
 * Performs a scripted `write_file` step inside the trial's workspace. A step that would write outside it, or a
 * trial without a workspace, fails the agent (its tool result says why) rather than touching the machine.
 */
export async function writeWorkspaceFile(
  step: WriteFileStep,
  env: EnvHandle,
  ctx: RunContext,
): Promise<void> {
  const usage = { tokens: step.tokens ?? 0, costUsd: step.costUsd ?? 0 }
  ctx.emit('agent.tool_call', { tool: 'write_file', args: { path: step.path, content: step.content } }, usage)
  const problem = locate(step.path, env.workdir)
  if (typeof problem === 'string') {
    ctx.emit('agent.tool_result', { tool: 'write_file', result: { error: problem }, isError: true })
    throw new Error(`write_file ${JSON.stringify(step.path)}: ${problem}`)
  }
  await mkdir(dirname(problem.target), { recursive: true })
  await writeFile(problem.target, step.content)
  ctx.emit('agent.tool_result', {
    tool: 'write_file',
    result: { path: step.path, bytes: Buffer.byteLength(step.content) },
  })
}

function locate(path: string, workdir: string | undefined): { target: string } | string {
  if (workdir === undefined) return 'the benchmark prepared no workspace for this task'
  const target = resolve(workdir, path)
  const rel = relative(workdir, target)
  if (isAbsolute(path) || rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    return 'the path is outside the workspace'
  }
  return { target }
}
