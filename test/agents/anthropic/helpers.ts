// Shared pieces of the anthropicRunner tests: a weather task with two tools, and runTrial wired to an in-memory
// trace store.
import {
  defineTask,
  type AgentRunner,
  type BenchmarkInfo,
  type EnvHandle,
  type ResourceLimits,
  type TaskSpec,
  type TraceEvent,
} from '../../../src/core/index.ts'
import { runTrial, type TrialRun } from '../../../src/engine/index.ts'
import { MemoryTraceStore } from '../../../src/stores/index.ts'
import { afterEach, beforeEach } from 'vitest'
import {
  anthropicRunner,
  type AnthropicRunnerOptions,
  type ToolHandler,
} from '../../../src/agents/anthropic/index.ts'
import { FakeMessagesServer, type RecordedRequest } from '../../support/fake-messages-server.ts'

export const benchmark: BenchmarkInfo = { id: 'anthropic-demo', version: '1', datasetChecksum: 'abc' }

export const weatherTask: TaskSpec = defineTask({
  id: 'weather-paris',
  benchmark: 'anthropic-demo',
  prompt: 'How warm is it in Paris, in Fahrenheit?',
  tools: [
    {
      name: 'get_weather',
      description: 'Current weather of a city, in Celsius.',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
    {
      name: 'convert',
      description: 'Celsius to Fahrenheit.',
      inputSchema: { type: 'object', properties: { celsius: { type: 'number' } } },
    },
  ],
})

export const plainTask: TaskSpec = defineTask({
  id: 'plain',
  benchmark: 'anthropic-demo',
  prompt: 'Say hi.',
})

export const weatherTools: Record<string, ToolHandler> = {
  get_weather: (input) => ({ city: (input as { city: string }).city, celsius: 18 }),
  convert: (input) => ({ fahrenheit: ((input as { celsius: number }).celsius * 9) / 5 + 32 }),
}

export interface TrialOptions {
  limits?: ResourceLimits
  prepare?: (task: TaskSpec) => EnvHandle
  trial?: number
}

export async function trial(runner: AgentRunner, task: TaskSpec, options: TrialOptions = {}) {
  const warnings: string[] = []
  const run: TrialRun = await runTrial({
    runId: 'run-anthropic',
    benchmark,
    task,
    trial: options.trial ?? 0,
    runner,
    limits: options.limits,
    prepare: options.prepare,
    traceStore: new MemoryTraceStore(),
    onWarning: (msg) => warnings.push(msg),
  })
  return { ...run, warnings }
}

export function kinds(events: readonly TraceEvent[]): string[] {
  return events.map((e) => e.kind)
}

export function modelCalls(events: readonly TraceEvent[]) {
  return events.flatMap((e) => (e.kind === 'agent.model_call' ? [e] : []))
}

export interface SentBody {
  model: string
  max_tokens: number
  temperature?: number
  system?: string
  tools?: { name: string; description?: string; input_schema: unknown }[]
  messages: { role: string; content: unknown }[]
}

export function bodyOf(request: RecordedRequest | undefined): SentBody {
  if (!request) throw new Error('no such request')
  return request.body as SentBody
}

/** Polls a condition in real time, bounded. */
export async function until(probe: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/**
 * A fake Messages API per test (started before, closed after, requiring `key`) and a runner bound to it, with
 * `defaults` under each test's own overrides.
 */
export function fakeApi(key: string, defaults: Partial<AnthropicRunnerOptions> = {}) {
  let current: FakeMessagesServer | undefined
  beforeEach(async () => {
    current = await FakeMessagesServer.start({ apiKey: key })
  })
  afterEach(async () => {
    await current?.close()
  })
  const server = (): FakeMessagesServer => {
    if (!current) throw new Error('fakeApi: the server exists only inside a test')
    return current
  }
  const runner = (overrides: Partial<AnthropicRunnerOptions> = {}): AgentRunner =>
    anthropicRunner({
      model: 'claude-haiku-4-5',
      apiKey: key,
      baseURL: server().url,
      retry: { baseDelayMs: 1 },
      ...defaults,
      ...overrides,
    })
  return { server, runner }
}
