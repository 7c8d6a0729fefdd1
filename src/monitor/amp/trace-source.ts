import * as z from 'zod'
import { AgentEvalOpsError, FullTrace, isAgentEvalOpsError } from '../../core/index.ts'
import type { MonitorTraceSource, MonitorWindow, SourcedTrace } from '../contract.ts'
import { bearerAuth } from './bearer.ts'
import { describeUrl, fetchWithRetry, snippet, type RetryOptions } from './http-retry.ts'
import type { TokenProvider } from './idp-token.ts'

/**
 * Traces per request: a window's traces are never all in memory, only a page of them (the service caps a page at
 * AMP_TRACE_PAGE_SIZE_MAX).
 */
export const AMP_TRACE_PAGE_SIZE = 10
export const AMP_TRACE_PAGE_SIZE_MAX = 1000

export interface AmpTraceSourceOptions {
  /** The traces service's base URL (`--traces-api-endpoint`). */
  endpoint: string
  organization: string
  project: string
  /** The component uid (`--agent`). */
  agent: string
  /** The environment uid (`--environment`). */
  environment: string
  tokens: TokenProvider | null
  pageSize?: number
  retry?: RetryOptions
}

/*
 * The page as the traces service's OpenAPI spec has it (`TraceExportResponse`: traces + totalCount), read loosely:
 * a service that pages by `nextOffset` or `hasMore` instead is followed too. The traces stay unknown here so one
 * malformed trace is skipped on its own instead of failing its page.
 */
const ExportPage = z.looseObject({
  traces: z.array(z.unknown()),
  totalCount: z.number().int().nonnegative().optional(),
  nextOffset: z.number().int().nonnegative().nullable().optional(),
  hasMore: z.boolean().optional(),
})
type ExportPage = z.infer<typeof ExportPage>

/** Issues of a malformed trace shown in its skip reason; the rest are counted. */
const REASON_ISSUES = 3

/**
 * The seed's traces API: `GET {endpoint}/api/v1/traces/export` page by page (limit/offset, oldest first so a trace
 * written while we page lands after the pages already read instead of shifting them), bearer token attached. A
 * malformed trace comes out as `{ ok: false }` with the reason; a malformed page or an answer that is not a 2xx
 * (after the retries of 5xx and network errors) throws INFRA_FAILURE naming the endpoint.
 */
export function createAmpTraceSource(options: AmpTraceSourceOptions): MonitorTraceSource {
  const pageSize = options.pageSize ?? AMP_TRACE_PAGE_SIZE
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > AMP_TRACE_PAGE_SIZE_MAX) {
    throw new AgentEvalOpsError(
      'CONFIG_INVALID',
      `traces API page size must be an integer from 1 to ${AMP_TRACE_PAGE_SIZE_MAX}, got ${pageSize}.`,
    )
  }
  const url = `${options.endpoint.replace(/\/+$/, '')}/api/v1/traces/export`
  const where = describeUrl(url)
  const description = `traces API ${where}`

  async function* pages(window: MonitorWindow, signal: AbortSignal): AsyncGenerator<SourcedTrace[]> {
    let offset = 0
    // Each page moves the offset forward or ends the loop, so it runs at most once per trace of the window.
    for (;;) {
      if (signal.aborted) return
      const query = new URLSearchParams({
        startTime: window.start.toISOString(),
        endTime: window.end.toISOString(),
        componentUid: options.agent,
        environmentUid: options.environment,
        limit: String(pageSize),
        offset: String(offset),
        sortOrder: 'asc',
      })
      let body: string
      try {
        const auth = bearerAuth(options.tokens, signal)
        const answer = await fetchWithRetry(
          {
            what: description,
            url: `${url}?${query.toString()}`,
            init: async () => ({
              method: 'GET',
              headers: { accept: 'application/json', ...(await auth.headers()) },
            }),
            reauthorize: () => auth.reauthorize(),
          },
          signal,
          options.retry,
        )
        if (answer.status < 200 || answer.status > 299) throw rejected(where, answer.status, answer.body)
        body = answer.body
      } catch (e) {
        // Stopping is what the caller asked for: the pages read so far stand.
        if (signal.aborted && isAgentEvalOpsError(e, 'RUN_ABORTED')) return
        throw e
      }
      const page = parsePage(body, where, offset)
      const items = page.traces
        .map((raw, i) => sourced(raw, offset + i))
        .filter((item) => inWindow(item, window))
      if (items.length > 0) yield items
      const next = nextOffset(page, offset, pageSize, where)
      if (next === null) return
      offset = next
    }
  }

  return { description, pages }
}

function parsePage(body: string, where: string, offset: number): ExportPage {
  let json: unknown
  try {
    json = JSON.parse(body) as unknown
  } catch {
    throw malformed(where, offset, `not JSON${snippet(body)}`)
  }
  const page = ExportPage.safeParse(json)
  if (!page.success) throw malformed(where, offset, describeIssues(page.error.issues))
  return page.data
}

/** Where the next page starts, or null when this one was the last. */
function nextOffset(page: ExportPage, offset: number, pageSize: number, where: string): number | null {
  const got = page.traces.length
  // More than was asked for: the service ignored the paging and sent the whole window (the seed's service does,
  // up to its cap); asking for the next offset would get the same traces again.
  if (got > pageSize) return null
  if (page.nextOffset !== undefined) {
    if (page.nextOffset === null) return null
    if (page.nextOffset <= offset) {
      throw malformed(where, offset, `nextOffset ${page.nextOffset} does not move past offset ${offset}`)
    }
    return page.nextOffset
  }
  if (got === 0) return null
  if (page.hasMore !== undefined) return page.hasMore ? offset + got : null
  // The service may cap a page below what was asked, so the total decides, not the page's length.
  if (page.totalCount !== undefined) return offset + got < page.totalCount ? offset + got : null
  return got < pageSize ? null : offset + got
}

/**
 * The service matches traces by any span that started in [start, end], so a trace that straddles a boundary comes
 * back in both windows; by the trace's own start it belongs to one of them only, so windows partition the traces.
 */
function inWindow(item: SourcedTrace, window: MonitorWindow): boolean {
  if (!item.ok) return true
  const start = Date.parse(item.trace.startTime)
  return start >= window.start.getTime() && start < window.end.getTime()
}

function sourced(raw: unknown, index: number): SourcedTrace {
  const parsed = FullTrace.safeParse(raw)
  if (parsed.success) return { ok: true, trace: parsed.data }
  const id = raw !== null && typeof raw === 'object' ? (raw as { traceId?: unknown }).traceId : undefined
  const traceId = typeof id === 'string' && id !== '' ? id : null
  return {
    ok: false,
    traceId,
    reason: `trace ${traceId ?? `#${index}`} is not a FullTrace: ${describeIssues(parsed.error.issues)}`,
  }
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, REASON_ISSUES).map((issue) => {
    const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')
    return `${path.replace(/^\./, '') || '(root)'}: ${issue.message}`
  })
  const more = issues.length - shown.length
  return `${shown.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`
}

function malformed(where: string, offset: number, detail: string): AgentEvalOpsError {
  return new AgentEvalOpsError(
    'INFRA_FAILURE',
    `traces API ${where} sent a malformed page (offset ${offset}): ${detail}.`,
    { hint: 'Check that --traces-api-endpoint points at the traces service (its /api/v1/traces/export).' },
  )
}

function rejected(where: string, status: number, body: string): AgentEvalOpsError {
  const hint =
    status === 401 || status === 403
      ? 'Check the IDP_* credentials: the service refused the token.'
      : status === 404
        ? 'Check --traces-api-endpoint.'
        : 'Check --agent, --environment, --trace-start and --trace-end.'
  return new AgentEvalOpsError(
    'INFRA_FAILURE',
    `traces API ${where} answered HTTP ${status}${snippet(body)}.`,
    {
      hint,
    },
  )
}
