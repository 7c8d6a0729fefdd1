import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import { AgentEvalOpsError } from '../core/index.ts'

type Sdk = typeof import('@anthropic-ai/sdk')
type OpenAISdk = typeof import('openai')

let sdk: Promise<Sdk> | undefined
let openaiSdk: Promise<OpenAISdk> | undefined

/**
 * The Anthropic SDK, loaded at the first model call rather than when agentevalops is imported: it takes a third
 * of a second and ~20 MB per worker, which a suite of scripted or callable agents should not pay. It is an
 * optional peer dependency (29 MB installed), so a project that never calls Anthropic does not install it.
 */
export function loadAnthropicSdk(): Promise<Sdk> {
  sdk ??= import('@anthropic-ai/sdk').catch((e: unknown) => {
    sdk = undefined
    throw isModuleMissing(e, '@anthropic-ai/sdk')
      ? new AgentEvalOpsError('INFRA_FAILURE', 'the Anthropic SDK (@anthropic-ai/sdk) is not installed', {
          hint: 'anthropicRunner() and llmJudge() call it: npm install --save-dev @anthropic-ai/sdk@^1.14.0',
          cause: e,
        })
      : e
  })
  return sdk
}

/**
 * The OpenAI SDK, for a judge behind an OpenAI-compatible gateway: an optional peer dependency like the Anthropic
 * SDK, loaded at the first call for the same reasons.
 */
export function loadOpenAISdk(): Promise<OpenAISdk> {
  openaiSdk ??= import('openai').catch((e: unknown) => {
    openaiSdk = undefined
    throw isModuleMissing(e, 'openai')
      ? new AgentEvalOpsError('INFRA_FAILURE', 'the OpenAI SDK (openai) is not installed', {
          hint: "openaiRunner() and llmJudge({ provider: 'openai' }) call it: npm install --save-dev openai@^6.30.0",
          cause: e,
        })
      : e
  })
  return openaiSdk
}

function isModuleMissing(e: unknown, name: string): boolean {
  const code = (e as { code?: unknown } | null)?.code
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    String((e as Error).message).includes(`'${name}'`)
  )
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

/** The same for Chat Completions: callChatCompletions retries, the client does not. */
export async function createOpenAIClient(options: {
  apiKey: string
  baseURL?: string | undefined
  /** Sent with every request: a gateway's own auth or routing headers. */
  headers?: Readonly<Record<string, string>> | undefined
}): Promise<OpenAI> {
  const { default: Client } = await loadOpenAISdk()
  return new Client({
    apiKey: options.apiKey,
    maxRetries: 0,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    ...(options.headers ? { defaultHeaders: { ...options.headers } } : {}),
  })
}
