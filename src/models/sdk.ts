import type Anthropic from '@anthropic-ai/sdk'

type Sdk = typeof import('@anthropic-ai/sdk')

let sdk: Promise<Sdk> | undefined

/**
 * The Anthropic SDK, loaded at the first model call rather than when agentevalops is imported: it takes a third
 * of a second and ~20 MB per worker, which a suite of scripted or callable agents should not pay.
 */
export function loadAnthropicSdk(): Promise<Sdk> {
  sdk ??= import('@anthropic-ai/sdk')
  return sdk
}

/** A client that never retries by itself: callMessages retries, so every attempt is an event in the trace. */
export async function createAnthropicClient(options: {
  apiKey: string
  baseURL?: string | undefined
}): Promise<Anthropic> {
  const { default: Client } = await loadAnthropicSdk()
  return new Client({
    apiKey: options.apiKey,
    maxRetries: 0,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
  })
}
