import { parseKeyValues, type Env } from './env.ts'

/*
 * OTLP/HTTP export of spans.jsonl's lines, configured the standard way (OTEL_EXPORTER_OTLP_* variables). Every
 * line already is an ExportTraceServiceRequest in OTLP JSON, so exporting is POSTing the lines as they are. Only
 * the http/json protocol is spoken: it is what the bundle holds, and it needs no protobuf or gRPC dependency.
 */

export interface OtlpTarget {
  /** The traces URL, e.g. `http://localhost:4318/v1/traces`. */
  url: string
  /** Extra request headers (credentials included): never printed. */
  headers: Record<string, string>
  /** From OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT, when set. */
  timeoutMs?: number
}

export type OtlpTargetResult = OtlpTarget | { error: string } | null

const SUPPORTED_PROTOCOL = 'http/json'

/**
 * Where to export, from the environment; null when no endpoint is set (or OTEL_SDK_DISABLED=true, or
 * OTEL_TRACES_EXPORTER names no `otlp`). OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is; otherwise `/v1/traces`
 * is appended to OTEL_EXPORTER_OTLP_ENDPOINT. Headers come from OTEL_EXPORTER_OTLP_HEADERS, overridden per name by
 * OTEL_EXPORTER_OTLP_TRACES_HEADERS. A protocol other than http/json is an error, not a silent fallback.
 */
export function otlpTarget(env: Env): OtlpTargetResult {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return null
  const exporters = env['OTEL_TRACES_EXPORTER']?.trim()
  if (exporters && !exporters.split(',').some((e) => e.trim().toLowerCase() === 'otlp')) return null

  const tracesEndpoint = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim()
  const endpoint = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim()
  if (!tracesEndpoint && !endpoint) return null
  const url = tracesEndpoint || `${endpoint!.replace(/\/+$/, '')}/v1/traces`

  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = env[name]?.trim()
    if (!protocol) continue
    if (protocol === SUPPORTED_PROTOCOL) break
    return {
      error:
        `${name}=${protocol} is not supported: agentevalops exports spans over OTLP/HTTP as JSON only. ` +
        `Set ${name}=${SUPPORTED_PROTOCOL} (or unset it), or send the spans to an OpenTelemetry Collector, ` +
        `which accepts JSON and forwards them in any protocol.`,
    }
  }

  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { error: `the OTLP traces endpoint ${JSON.stringify(url)} is not a URL` }
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { error: `the OTLP traces endpoint must be an http(s) URL, not ${parsed.protocol}` }
  }
  if (parsed.username || parsed.password) {
    // fetch refuses such URLs, and a credential in a URL ends up in logs.
    return {
      error:
        'the OTLP traces endpoint has credentials in it: put them in OTEL_EXPORTER_OTLP_HEADERS ' +
        '(e.g. Authorization=Basic%20<base64>) instead',
    }
  }

  // Header names are case-insensitive: the traces-specific list overrides the general one whatever the case.
  const headers: Record<string, string> = {}
  for (const source of [env['OTEL_EXPORTER_OTLP_HEADERS'], env['OTEL_EXPORTER_OTLP_TRACES_HEADERS']]) {
    for (const [key, value] of Object.entries(parseKeyValues(source))) headers[key.toLowerCase()] = value
  }
  const timeout = Number(env['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT'] ?? env['OTEL_EXPORTER_OTLP_TIMEOUT'])
  return {
    url,
    headers,
    ...(Number.isFinite(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}),
  }
}

export interface ExportOtlpOptions {
  /** Per request; default the target's, else 10 000. */
  timeoutMs?: number
  /** Further attempts after a retryable failure (429, 502, 503, 504, network error, timeout). Default 2. */
  retries?: number
  /** First retry delay, doubled each time up to `maxDelayMs` (a Retry-After is honoured up to that too). */
  baseDelayMs?: number
  maxDelayMs?: number
  fetch?: typeof fetch
  sleep?: (ms: number) => Promise<void>
}

export type ExportOtlpResult =
  | {
      ok: true
      requests: number
      /** Spans the receiver said it rejected (OTLP partial success). */ rejectedSpans: number
    }
  | { ok: false; error: string; /** Requests accepted before the failure. */ requests: number }

const RETRYABLE = new Set([429, 502, 503, 504])
const DEFAULT_TIMEOUT_MS = 10_000
/** Enough of an error body to say what the receiver objected to. */
const BODY_SNIPPET = 300

/**
 * POSTs each line (an OTLP JSON ExportTraceServiceRequest) to the target, in order. The lines may come one at a
 * time (readOtlpLines of a spans file streamed during the run), so a large run's spans are never all in memory. Stops at the first line that
 * still fails after its retries, so an unreachable endpoint costs one line's attempts, not one per trial. Never
 * throws: failures come back as `ok: false` with a message fit for a warning (no header values in it).
 */
export async function exportOtlp(
  lines: Iterable<string> | AsyncIterable<string>,
  target: OtlpTarget,
  options: ExportOtlpOptions = {},
): Promise<ExportOtlpResult> {
  const timeoutMs = options.timeoutMs ?? target.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const retries = Math.max(0, Math.floor(options.retries ?? 2))
  const baseDelayMs = options.baseDelayMs ?? 500
  const maxDelayMs = options.maxDelayMs ?? 5_000
  const fetchFn = options.fetch ?? globalThis.fetch
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  const where = describeUrl(target.url)
  let requests = 0
  let rejectedSpans = 0
  try {
    for await (const line of lines) {
      let failure = ''
      let sent = false
      for (let attempt = 0; attempt <= retries && !sent; attempt++) {
        let retryAfterMs: number | null = null
        try {
          const response = await fetchFn(target.url, {
            method: 'POST',
            headers: { ...target.headers, 'content-type': 'application/json' },
            body: line,
            signal: AbortSignal.timeout(timeoutMs),
          })
          const body = await response.text()
          if (response.ok) {
            rejectedSpans += rejectedIn(body)
            sent = true
            break
          }
          failure = `HTTP ${response.status}${body.trim() ? `: ${body.trim().slice(0, BODY_SNIPPET)}` : ''}`
          if (!RETRYABLE.has(response.status)) break
          retryAfterMs = retryAfter(response.headers.get('retry-after'))
        } catch (e) {
          failure = networkError(e, timeoutMs)
        }
        if (attempt < retries) {
          const backoff = Math.min(baseDelayMs * 2 ** attempt, maxDelayMs)
          await sleep(Math.min(Math.max(backoff, retryAfterMs ?? 0), maxDelayMs))
        }
      }
      if (!sent) return { ok: false, error: `OTLP export to ${where} failed: ${failure}`, requests }
      requests++
    }
    return { ok: true, requests, rejectedSpans }
  } catch (e) {
    return { ok: false, error: `OTLP export to ${where} failed: ${String(e)}`, requests }
  }
}

/** The URL without credentials or query: safe to print. */
function describeUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.origin}${u.pathname}`
  } catch {
    return '(invalid URL)'
  }
}

function networkError(e: unknown, timeoutMs: number): string {
  if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`
  }
  const cause =
    e instanceof Error ? (e.cause as { code?: unknown; message?: unknown } | undefined) : undefined
  if (cause && typeof cause.code === 'string')
    return `${cause.code}${typeof cause.message === 'string' ? ` (${cause.message})` : ''}`
  return e instanceof Error ? e.message : String(e)
}

function retryAfter(header: string | null): number | null {
  if (!header) return null
  const seconds = Number(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(header)
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : null
}

/** `partialSuccess.rejectedSpans` of an OTLP JSON response, 0 when absent or not JSON. */
function rejectedIn(body: string): number {
  if (!body.trim()) return 0
  try {
    const json = JSON.parse(body) as { partialSuccess?: { rejectedSpans?: unknown } }
    const n = Number(json.partialSuccess?.rejectedSpans ?? 0)
    return Number.isFinite(n) && n > 0 ? n : 0
  } catch {
    return 0
  }
}
