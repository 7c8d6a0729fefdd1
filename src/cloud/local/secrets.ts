import { AgentEvalOpsError, type SecretRef } from '../../core/index.ts'

/**
 * A secret of the local backend: the environment variable of that name. The value is returned and nothing else
 * happens to it; errors name the variable, never a value.
 */
export function secretFromEnv(ref: SecretRef, env: NodeJS.ProcessEnv): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(ref.name))
    throw new AgentEvalOpsError(
      'SECRET_MISSING',
      `${JSON.stringify(ref.name)} cannot name an environment variable.`,
      { hint: 'Name the secret by its variable, e.g. ANTHROPIC_API_KEY.' },
    )
  const value = env[ref.name]
  if (value === undefined || value === '')
    throw new AgentEvalOpsError('SECRET_MISSING', `the environment variable ${ref.name} is not set.`, {
      hint: `Export ${ref.name} in the shell that starts the run.`,
    })
  return value
}
