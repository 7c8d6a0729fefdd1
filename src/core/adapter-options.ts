import type { z } from 'zod'
import { AgentEvalOpsError } from './errors.ts'

/**
 * An adapter's options, validated where the adapter is made (from TypeScript as from a RunConfig): a typo or a
 * wrong value is CONFIG_INVALID naming the adapter and the option, with `hint` listing what it takes.
 */
export function parseAdapterInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  adapter: string,
  hint: string,
): z.output<S> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''
  throw new AgentEvalOpsError(
    'CONFIG_INVALID',
    `invalid options for ${adapter}: ${where}${issue?.message ?? ''}`,
    {
      hint,
    },
  )
}
