import { checksumOf } from './checksum.ts'
import { AgentEvalOpsError } from './errors.ts'
import type { JsonValue } from './json.ts'
import { TaskSpec } from './schemas.ts'

export type TaskInput = Omit<TaskSpec, 'checksum' | 'metadata'> & { metadata?: TaskSpec['metadata'] }

/**
 * Validates a task and stamps the checksum of its content, so a changed task is never mistaken for the old one.
 * `options.unseen` is what the task depends on without showing it (a dataset grader's settings): it changes the checksum,
 * and so makes a resumed run run the task again, but is not part of the spec.
 */
export function defineTask(input: TaskInput, options: { unseen?: JsonValue } = {}): TaskSpec {
  const content = { ...input, metadata: input.metadata ?? {} }
  const { unseen } = options
  const checksum = checksumOf(unseen === undefined ? content : { content, unseen })
  const parsed = TaskSpec.safeParse({ ...content, checksum })
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
