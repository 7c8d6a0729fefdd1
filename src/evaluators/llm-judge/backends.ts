import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import { AgentEvalOpsError } from '../../core/index.ts'
import {
  callChatCompletions,
  callMessages,
  createAnthropicClient,
  createOpenAIClient,
  type CallMessagesOptions,
  type ChatRequest,
  type MessagesRequest,
} from '../../models/index.ts'

/** Who answers the judge: Anthropic's Messages API, or any OpenAI-compatible Chat Completions endpoint. */
export const JUDGE_PROVIDERS = ['anthropic', 'openai'] as const
export type JudgeProvider = (typeof JUDGE_PROVIDERS)[number]

/** One turn of a judging conversation; the system prompt is sent the way each API wants it. */
export interface JudgeTurn {
  role: 'user' | 'assistant'
  content: string
}

export interface JudgeReply {
  text: string
  /** The reply stopped at the token limit: a malformed verdict is then probably just cut off. */
  truncated: boolean
}

/** The one thing the judge needs of a provider: a reply to a conversation, every attempt reported. */
export interface JudgeBackend {
  /** Credentials of the client, redacted from everything the judge writes. */
  readonly secrets: readonly (string | null | undefined)[]
  reply(turns: JudgeTurn[], call: CallMessagesOptions): Promise<JudgeReply>
}

export interface JudgeRequestSettings {
  model: string
  maxTokens: number
  system: string
  temperature: number | null
  /** OpenAI only: ask for `response_format: json_object`. */
  jsonResponseFormat: boolean
}

export interface BackendOptions {
  id: string
  provider: JudgeProvider
  client?: Anthropic | OpenAI | undefined
  apiKey?: string | undefined
  baseURL?: string | undefined
}

/**
 * The client of the configured provider, made at the first judgement so that defining a suite needs no key. The
 * key and base URL come from the options, else the provider's own variables (ANTHROPIC_*, OPENAI_*); monitor mode
 * passes LLM_API_BASE / LLM_API_KEY in as options (judgeGatewayFromEnv).
 */
export async function createBackend(
  options: BackendOptions,
  settings: JudgeRequestSettings,
): Promise<JudgeBackend> {
  return options.provider === 'openai'
    ? openaiBackend(await openaiClient(options), settings, options.apiKey)
    : anthropicBackend(await anthropicClient(options), settings, options.apiKey)
}

function anthropicBackend(client: Anthropic, settings: JudgeRequestSettings, apiKey?: string): JudgeBackend {
  return {
    secrets: [apiKey, client.apiKey, client.authToken],
    async reply(turns, call) {
      const request: MessagesRequest = {
        model: settings.model,
        max_tokens: settings.maxTokens,
        system: settings.system,
        messages: turns,
        ...(settings.temperature === null ? {} : { temperature: settings.temperature }),
      }
      const response = await callMessages(client, request, call)
      const text = response.content
        .flatMap((block) => (block.type === 'text' ? [block.text] : []))
        .join('\n')
        .trim()
      return { text, truncated: response.stop_reason === 'max_tokens' }
    },
  }
}

function openaiBackend(client: OpenAI, settings: JudgeRequestSettings, apiKey?: string): JudgeBackend {
  return {
    secrets: [apiKey, client.apiKey],
    async reply(turns, call) {
      const request: ChatRequest = {
        model: settings.model,
        // max_completion_tokens, not the deprecated max_tokens that reasoning models refuse.
        max_completion_tokens: settings.maxTokens,
        messages: [{ role: 'system', content: settings.system }, ...turns],
        ...(settings.temperature === null ? {} : { temperature: settings.temperature }),
        ...(settings.jsonResponseFormat ? { response_format: { type: 'json_object' } } : {}),
      }
      const response = await callChatCompletions(client, request, call)
      const [choice] = response.choices
      return { text: (choice?.message.content ?? '').trim(), truncated: choice?.finish_reason === 'length' }
    },
  }
}

async function anthropicClient(options: BackendOptions): Promise<Anthropic> {
  if (options.client) return options.client as Anthropic
  const apiKey = (options.apiKey ?? process.env.ANTHROPIC_API_KEY)?.trim()
  if (!apiKey) {
    throw new AgentEvalOpsError('CONFIG_INVALID', `llm_judge "${options.id}" has no Anthropic API key`, {
      hint: 'Set ANTHROPIC_API_KEY (or pass apiKey or client to llmJudge()).',
    })
  }
  const baseURL = options.baseURL ?? (process.env.ANTHROPIC_BASE_URL || undefined)
  return createAnthropicClient({ apiKey, baseURL })
}

async function openaiClient(options: BackendOptions): Promise<OpenAI> {
  if (options.client) return options.client as OpenAI
  const apiKey = (options.apiKey ?? process.env.OPENAI_API_KEY)?.trim()
  if (!apiKey) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `llm_judge "${options.id}" (provider openai) has no API key`,
      {
        hint:
          'Set LLM_API_KEY (monitor mode) or OPENAI_API_KEY, or pass apiKey or client to llmJudge(); a gateway ' +
          'that needs no key still wants a placeholder value.',
      },
    )
  }
  const baseURL = options.baseURL ?? (process.env.OPENAI_BASE_URL || undefined)
  return createOpenAIClient({ apiKey, baseURL })
}

/**
 * The judge's gateway in monitor mode, as the seed's deployment configures it: LLM_API_BASE (an OpenAI-compatible
 * base URL, e.g. `https://gateway.example/v1`) and LLM_API_KEY. Null when neither is set, and the judge then uses
 * its defaults (Anthropic).
 */
export function judgeGatewayFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): { provider: 'openai'; baseURL?: string; apiKey?: string } | null {
  const baseURL = env.LLM_API_BASE?.trim() || undefined
  const apiKey = env.LLM_API_KEY?.trim() || undefined
  if (baseURL === undefined && apiKey === undefined) return null
  if (baseURL !== undefined && !/^https?:$/.test(URL.parse(baseURL)?.protocol ?? ''))
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `LLM_API_BASE is not an http(s) URL: ${JSON.stringify(baseURL)}`,
      {
        hint: 'Set LLM_API_BASE to the base URL of the OpenAI-compatible gateway, e.g. https://gateway.example/v1.',
      },
    )
  return {
    provider: 'openai',
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(apiKey === undefined ? {} : { apiKey }),
  }
}
