import type { LanguageModelMiddleware } from 'ai'

// The provider-level (v3) shapes, named through `ai` itself: the package users install, so no other import.
type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>

/** A model as providers make it (`openai.chat('gpt-4.1-mini')`, `anthropic('claude-haiku-4-5')`). */
export type ProviderModel = Parameters<WrapGenerate>[0]['model']
export type CallOptions = Parameters<ProviderModel['doGenerate']>[0]
export type GenerateResult = Awaited<ReturnType<ProviderModel['doGenerate']>>
export type StreamResult = Awaited<ReturnType<ProviderModel['doStream']>>
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never
export type Usage = GenerateResult['usage']
export type { LanguageModelMiddleware }
