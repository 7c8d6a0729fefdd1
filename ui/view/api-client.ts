import {
  VIEW_ROUTES,
  type CompareResponse,
  type LiveEvent,
  type RunsResponse,
  type TaskHistoryResponse,
  type TrendsResponse,
} from '../../src/view/api.ts'
import { withQuery } from './router.ts'

/**
 * The one place the app talks to the view server (same origin): JSON of the /api routes, and the events stream. A
 * failure is returned as text for the page to show, never thrown away.
 */

export type Loaded<T> = { ok: true; data: T } | { ok: false; error: string }

/** How the events stream is doing, for the page to say when live updates stopped. */
export type FeedStatus = 'connecting' | 'open' | 'reconnecting' | 'closed'

export interface ViewClient {
  runs(): Promise<Loaded<RunsResponse>>
  trends(): Promise<Loaded<TrendsResponse>>
  history(benchmark: string, target: string): Promise<Loaded<TaskHistoryResponse>>
  compare(baseline: string, candidate: string): Promise<Loaded<CompareResponse>>
  /** Opens the events stream; each event, each change of status and each unreadable message are reported. */
  events(handlers: FeedHandlers): () => void
}

export interface FeedHandlers {
  event: (event: LiveEvent) => void
  status: (status: FeedStatus) => void
  problem: (text: string) => void
}

export function viewClient(): ViewClient {
  return {
    runs: () => getJson<RunsResponse>(VIEW_ROUTES.runs),
    trends: () => getJson<TrendsResponse>(VIEW_ROUTES.trends),
    history: (benchmark, target) => getJson(withQuery(VIEW_ROUTES.history, { benchmark, target })),
    compare: (baseline, candidate) => getJson(withQuery(VIEW_ROUTES.compare, { baseline, candidate })),
    events: openEvents,
  }
}

async function getJson<T>(path: string): Promise<Loaded<T>> {
  let response: Response
  try {
    response = await fetch(path, { headers: { accept: 'application/json' } })
  } catch (error) {
    return { ok: false, error: `Could not reach the view server for ${path}: ${message(error)}` }
  }
  let body: string
  try {
    body = await response.text()
  } catch (error) {
    return { ok: false, error: `The answer to ${path} broke off: ${message(error)}` }
  }
  if (!response.ok) {
    const detail = errorDetail(body)
    return {
      ok: false,
      error:
        `${path} answered ${response.status} ${response.statusText}`.trim() + (detail ? `: ${detail}` : ''),
    }
  }
  try {
    return { ok: true, data: JSON.parse(body) as T }
  } catch {
    return { ok: false, error: `${path} answered something that is not JSON (${body.length} bytes)` }
  }
}

/** The server's own words about a failure: `{ error: { message } }`, `{ error }`, `{ message }` or plain text. */
function errorDetail(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body)
    if (parsed && typeof parsed === 'object') {
      const record = parsed as { error?: unknown; message?: unknown }
      const inner = record.error
      if (
        inner &&
        typeof inner === 'object' &&
        typeof (inner as { message?: unknown }).message === 'string'
      ) {
        return (inner as { message: string }).message
      }
      if (typeof inner === 'string') return inner
      if (typeof record.message === 'string') return record.message
    }
  } catch {
    // not JSON: the text itself
  }
  return body.trim().slice(0, 500)
}

const EVENT_TYPES = new Set(['run-started', 'run-progress', 'run-ended', 'runs-changed'])

function openEvents(handlers: FeedHandlers): () => void {
  if (typeof EventSource === 'undefined') {
    handlers.status('closed')
    handlers.problem(
      'This browser has no EventSource: the page will not update live; reload it to see changes.',
    )
    return () => {}
  }
  const source = new EventSource(VIEW_ROUTES.events)
  handlers.status('connecting')
  source.onopen = () => handlers.status('open')
  source.onerror = () => handlers.status(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting')
  source.onmessage = (message: MessageEvent<string>) => {
    const event = liveEvent(message.data)
    if (event) handlers.event(event)
    else handlers.problem(`An event the page does not understand was skipped: ${message.data.slice(0, 200)}`)
  }
  return () => source.close()
}

function liveEvent(data: string): LiveEvent | null {
  try {
    const parsed = JSON.parse(data) as { type?: unknown; run?: unknown }
    if (typeof parsed.type !== 'string' || !EVENT_TYPES.has(parsed.type)) return null
    if (parsed.type !== 'runs-changed' && (typeof parsed.run !== 'object' || parsed.run === null)) return null
    return parsed as LiveEvent
  } catch {
    return null
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
