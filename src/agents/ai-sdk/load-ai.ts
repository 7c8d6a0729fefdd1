import { AgentEvalOpsError } from '../../core/index.ts'

type Ai = typeof import('ai')

let ai: Promise<Ai> | undefined

/**
 * The AI SDK, loaded at a traced model's first call rather than when agentevalops is imported: it is an optional
 * peer dependency, installed by the projects whose agents are built on it.
 */
export function loadAi(): Promise<Ai> {
  ai ??= import('ai').catch((e: unknown) => {
    ai = undefined
    const code = (e as { code?: unknown } | null)?.code
    const missing =
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      String((e as Error).message).includes("'ai'")
    throw missing
      ? new AgentEvalOpsError('INFRA_FAILURE', 'the AI SDK (ai) is not installed', {
          hint: 'traced() wraps an AI SDK model: npm install ai@^6',
          cause: e,
        })
      : e
  })
  return ai
}
