import { AgentEvalOpsError } from '../../core/index.ts'
import { loadAi } from './load-ai.ts'
import { agentEvalOpsMiddleware } from './middleware.ts'
import type { ProviderModel } from './types.ts'

/**
 * An AI SDK model whose calls inside a callableRunner agent are traced, limited and recorded (see agentEvalOpsMiddleware()):
 * `generateText({ model: traced(openai.chat('gpt-4.1-mini')), tools, stopWhen })`. It may be made once, at module
 * level: each call finds the trial it belongs to by itself. It is the SDK's own `wrapLanguageModel` with our
 * middleware, made at the first call, since the SDK is loaded only by the projects that use it.
 */
export function traced(model: ProviderModel): ProviderModel {
  if (
    model === null ||
    typeof model !== 'object' ||
    (model as { specificationVersion?: unknown }).specificationVersion !== 'v3'
  ) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `traced(): expected an AI SDK language model (specification v3), got ${describe(model)}`,
      {
        hint: "Pass the provider's model object, e.g. traced(openai.chat('gpt-4.1-mini')), with ai@^6 and a provider of its generation.",
      },
    )
  }
  const middleware = agentEvalOpsMiddleware()
  let wrapped: Promise<ProviderModel> | undefined
  const inner = (): Promise<ProviderModel> =>
    (wrapped ??= loadAi().then((ai) => ai.wrapLanguageModel({ model, middleware })))
  return {
    specificationVersion: 'v3',
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls
    },
    doGenerate: async (options) => (await inner()).doGenerate(options),
    doStream: async (options) => (await inner()).doStream(options),
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`
  if (value === null || typeof value !== 'object') return String(value)
  const version = (value as { specificationVersion?: unknown }).specificationVersion
  return version === undefined
    ? 'an object that is not a model'
    : `a model of specification ${JSON.stringify(version)}`
}
