import { checksumOf } from './checksum.ts'
import { AgentEvalOpsError } from './errors.ts'
import { TaskSpec } from './schemas.ts'

export type TaskInput = Omit<TaskSpec, 'checksum' | 'metadata'> & { metadata?: TaskSpec['metadata'] }

/** Validates a task and stamps the checksum of its content, so a changed task is never mistaken for the old one. */
export function defineTask(input: TaskInput): TaskSpec {
  const content = { ...input, metadata: input.metadata ?? {} }
  const parsed = TaskSpec.safeParse({ ...content, checksum: checksumOf(content) })
  if (!parsed.success) {
    throw new AgentEvalOpsError(
      'TASK_INVALID',
      `task ${JSON.stringify(input.id)} is invalid: ${parsed.error.message}`,
      {
        hint: 'Fix the task definition in its benchmark.',
      },
    )
  }
  return parsed.data
}
