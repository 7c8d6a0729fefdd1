import { vi } from 'vitest'
import type { GroupFigure, LiveEvent, RunEntry } from '../../../src/view/api.ts'

/** A runs-list row as the server sends it: a valid completed run of toy × mock unless told otherwise. */
export function runEntry(run: string, over: Partial<RunEntry> = {}): RunEntry {
  const group: GroupFigure = {
    benchmark: 'toy',
    target: 'mock',
    rate: 0.72,
    ci: { lower: 0.612, upper: 0.81 },
    method: 'wilson',
    tasks: 10,
    trials: 50,
    passed: 36,
  }
  return {
    run,
    runId: run,
    state: 'valid',
    problems: [],
    status: 'completed',
    startedAt: '2026-12-01T10:00:00.000Z',
    finishedAt: '2026-12-01T10:05:00.000Z',
    benchmarks: ['toy'],
    targets: ['mock'],
    gitSha: '0123456789abcdef0123456789abcdef01234567',
    gitDirty: false,
    labels: {},
    trials: 50,
    passed: 36,
    headline: group,
    groups: [group],
    costUsd: 0.0123,
    verdict: null,
    ...over,
  }
}

/** A stand-in for the view server's JSON routes: answers by path and query, and records what was asked. */
export function stubServer(answers: Record<string, unknown>) {
  const asked: string[] = []
  const fetch = vi.fn(async (input: RequestInfo | URL) => {
    const url = new URL(input instanceof Request ? input.url : input, 'http://127.0.0.1')
    const key = url.pathname + url.search
    asked.push(key)
    if (!(key in answers))
      return new Response(JSON.stringify({ error: { message: `no ${key}` } }), { status: 404 })
    const answer = answers[key]
    if (answer instanceof Response) return answer.clone()
    return new Response(JSON.stringify(answer), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    })
  })
  vi.stubGlobal('fetch', fetch)
  return { asked, answers }
}

/** An EventSource the test drives: it says what the server's events stream would. */
export class FakeEventSource {
  static readonly CONNECTING = 0
  static readonly OPEN = 1
  static readonly CLOSED = 2
  static instances: FakeEventSource[] = []
  readyState = FakeEventSource.CONNECTING
  onopen: (() => void) | null = null
  onerror: (() => void) | null = null
  onmessage: ((message: MessageEvent<string>) => void) | null = null

  constructor(readonly url: string) {
    FakeEventSource.instances.push(this)
  }

  open(): void {
    this.readyState = FakeEventSource.OPEN
    this.onopen?.()
  }

  send(event: LiveEvent | string): void {
    const data = typeof event === 'string' ? event : JSON.stringify(event)
    this.onmessage?.(new MessageEvent('message', { data }))
  }

  close(): void {
    this.readyState = FakeEventSource.CLOSED
  }

  static install(): void {
    FakeEventSource.instances = []
    vi.stubGlobal('EventSource', FakeEventSource)
  }

  static last(): FakeEventSource {
    const source = FakeEventSource.instances[FakeEventSource.instances.length - 1]
    if (!source) throw new Error('the app opened no events stream')
    return source
  }
}

/** The app's URL before it renders. */
export function at(path: string): void {
  history.replaceState(null, '', path)
}
