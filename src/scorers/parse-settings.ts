import type { z } from 'zod'
import { AgentEvalOpsError } from '../core/index.ts'

/** Settings parsed by their schema, or CONFIG_INVALID naming each bad field: before any statistic is computed. */
export function parseSettings<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  hint: string,
): z.output<S> {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
  throw new AgentEvalOpsError('CONFIG_INVALID', `invalid ${what}: ${issues.join('; ')}`, { hint })
}
