import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AgentEvalOpsError, errorMessage, isAgentEvalOpsError } from '../../core/index.ts'
import type { RunEntry, RunsResponse } from '../api.ts'
import { Catalog } from '../catalog/index.ts'
import { LiveEventStream, LiveRuns } from '../live/index.ts'
import { ViewEvents } from './events-route.ts'
import type { HistoryFunctions } from './history-api.ts'
import { isAllowedHost, type BoundAddress } from './host-check.ts'
import { appPage, messagePage, type Page } from './pages.ts'
import { ReportPages } from './report-pages.ts'
import { parseRequestPath, type RequestPath } from './request-path.ts'

export const DEFAULT_VIEW_HOST = '127.0.0.1'
export const DEFAULT_VIEW_PORT = 4173

export interface ViewServerOptions {
  runsDir: string
  /** The interface to listen on: 127.0.0.1 unless told otherwise. */
  host?: string
  /** 0 asks for any free port. */
  port?: number
  /** The runs folder's index; by default one over `runsDir`, cached in it, watched. */
  catalog?: Catalog
  /** What the trends, history and compare routes answer with; without them those routes say they are not available. */
  history?: HistoryFunctions
  /**
   * The runs in progress under `runsDir` (its `.staging/`), listed beside the sealed ones and streamed on the events
   * route; by default one over `runsDir`, started and stopped with the server. `false`: sealed runs only.
   */
  live?: LiveRuns | false
  /** Where a request that failed unexpectedly is reported (the page says only that it failed). */
  onError?: (error: unknown) => void
  /** A live run's staging folder that could not be read (said once per folder and kind of trouble). */
  onProblem?: (message: string) => void
}

export interface ViewServer {
  /** The URL to open, e.g. http://127.0.0.1:4173/ */
  url: string
  host: string
  port: number
  catalog: Catalog
  /** Stops listening, ends the event streams and the catalog's watching. */
  close(): Promise<void>
}

/** Headers every response carries: no sniffing, no referrer, no framing, readable by this origin alone. */
const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
}

/**
 * `agentevalops view`'s server: the view app at every app path, the runs folder's index and history as JSON, one
 * run's report, and an events stream. It reads files only through the catalog, which names the bundle folders it
 * listed: a request names a run, never a path.
 */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const host = options.host ?? DEFAULT_VIEW_HOST
  const catalog = options.catalog ?? new Catalog(options.runsDir)
  const reports = new ReportPages(catalog)
  const live =
    options.live === false
      ? null
      : (options.live ?? new LiveRuns({ runsDir: options.runsDir, onProblem: options.onProblem }))
  const events = new ViewEvents(catalog, live)
  const stream = new LiveEventStream(events, { headers: SECURITY_HEADERS })
  const bound: BoundAddress = { host, port: options.port ?? DEFAULT_VIEW_PORT }
  const onError = options.onError ?? (() => undefined)
  // The first scan starts with the server: the first /api/runs waits for it rather than starting its own.
  const firstScan = catalog.refresh().catch(() => false)

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      onError(error)
      if (!res.headersSent)
        send(res, req, 500, 'text/plain; charset=utf-8', 'the view server failed on this request\n')
      else res.end()
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isAllowedHost(req.headers.host, bound)) {
      return send(
        res,
        req,
        403,
        'text/plain; charset=utf-8',
        `this server answers to ${hostFor(bound)} only\n`,
      )
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD')
      return send(res, req, 405, 'text/plain; charset=utf-8', 'only GET and HEAD\n')
    }
    const path = parseRequestPath(req.url)
    if (!path) return notFound(req, res, true)
    const [first, second, third] = path.segments
    if (first === 'api') return api(req, res, path)
    if (path.segments.length === 0 || (path.segments.length === 1 && APP_PAGES.has(first!))) {
      return sendPage(req, res, 200, appPage())
    }
    if (first === 'runs' && second !== undefined) {
      if (!(await knows(second))) return notFound(req, res, false)
      if (third === 'report' && path.segments.length === 3) {
        const report = await reports.page(second)
        if (report) return sendPage(req, res, report.status, report.page)
        if (liveEntry(second)) return sendPage(req, res, 200, inProgressPage(second))
        return notFound(req, res, false)
      }
      if (isRunAppPath(path.segments)) return sendPage(req, res, 200, appPage())
    }
    return notFound(req, res, false)
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: RequestPath): Promise<void> {
    const [, route, run, ...rest] = path.segments
    if (route === 'runs' && run === undefined) {
      await firstScan
      await catalog.refresh()
      const body: RunsResponse = { runsDir: catalog.runsDir, runs: listedRuns() }
      return json(req, res, 200, body)
    }
    if (route === 'runs' && run !== undefined && rest.length === 0) {
      if (!(await knows(run))) return json(req, res, 404, { error: `no run ${run} in ${catalog.runsDir}` })
      return json(req, res, 200, catalog.get(run)?.run.entry ?? liveEntry(run))
    }
    if (route === 'events' && run === undefined) return stream.serve(req, res)
    if ((route === 'trends' || route === 'history' || route === 'compare') && run === undefined) {
      const history = options.history
      if (!history) return json(req, res, 501, { error: `${route} is not available in this build of view` })
      await firstScan
      await catalog.refresh()
      const valid = catalog.runs().filter((r) => r.entry.state === 'valid')
      if (route === 'trends') return json(req, res, 200, { series: history.trendSeries(valid) })
      if (route === 'history') {
        const benchmark = path.query.get('benchmark')
        const target = path.query.get('target')
        if (!benchmark || !target) return json(req, res, 400, { error: 'history needs ?benchmark=&target=' })
        return json(req, res, 200, history.taskHistory(valid, benchmark, target))
      }
      const baseline = path.query.get('baseline')
      const candidate = path.query.get('candidate')
      if (!baseline || !candidate)
        return json(req, res, 400, { error: 'compare needs ?baseline=&candidate=' })
      const a = catalog.get(baseline)?.run
      const b = catalog.get(candidate)?.run
      if (!a || !b)
        return json(req, res, 404, { error: `no run ${a ? candidate : baseline} in ${catalog.runsDir}` })
      try {
        return json(req, res, 200, await history.compareRunFolders(catalog.runsDir, a, b))
      } catch (e) {
        if (isAgentEvalOpsError(e)) return json(req, res, 409, { error: e.message, code: e.code })
        throw e
      }
    }
    return json(req, res, 404, { error: 'no such route' })
  }

  /** Whether `run` is a live run or the catalog's folder, after a re-scan when it was neither (a bundle just sealed). */
  async function knows(run: string): Promise<boolean> {
    await firstScan
    if (catalog.get(run) || liveEntry(run)) return true
    await catalog.refresh()
    return catalog.get(run) !== undefined
  }

  function liveEntry(run: string): RunEntry | undefined {
    return live?.live().find((entry) => entry.run === run)
  }

  /** The runs in progress (newest first), then the sealed ones; a run sealed meanwhile is listed once, sealed. */
  function listedRuns(): RunEntry[] {
    const sealed = catalog.runs().map((r) => r.entry)
    const running = (live?.live() ?? []).filter((entry) => !catalog.get(entry.run)).reverse()
    return [...running, ...sealed]
  }

  function notFound(req: IncomingMessage, res: ServerResponse, refused: boolean): void {
    const page = messagePage(
      'Not found',
      refused ? 'This path cannot name anything here.' : 'Nothing is at this address.',
    )
    sendPage(req, res, 404, page)
  }

  await live?.start()
  try {
    await listen(server, bound.port, host)
  } catch (e) {
    events.close()
    await live?.stop()
    throw e
  }
  const port = (server.address() as AddressInfo).port
  bound.port = port
  catalog.watch()
  return {
    url: `http://${hostFor(bound)}/`,
    host,
    port,
    catalog,
    close: async () => {
      stream.closeAll()
      events.close()
      await live?.stop()
      catalog.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
    },
  }
}

function inProgressPage(run: string): Page {
  return messagePage(
    'Run in progress',
    `Run ${run} is still running: its report is made from its bundle, which is sealed when the run ends. Its page in the runs list follows it live.`,
  )
}

const APP_PAGES = new Set(['trends', 'history', 'compare'])

/** /runs/:run, /runs/:run/tasks/:task and /runs/:run/tasks/:task/trials/:n: pages of the app. */
function isRunAppPath(segments: readonly string[]): boolean {
  if (segments.length === 2) return true
  if (segments.length === 4) return segments[2] === 'tasks'
  return (
    segments.length === 6 &&
    segments[2] === 'tasks' &&
    segments[4] === 'trials' &&
    /^\d{1,9}$/.test(segments[5]!)
  )
}

function hostFor(bound: BoundAddress): string {
  const host = bound.host === '0.0.0.0' || bound.host === '::' ? '127.0.0.1' : bound.host
  return `${host.includes(':') ? `[${host}]` : host}:${bound.port}`
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      server.off('listening', done)
      reject(listenError(error, port, host))
    }
    const done = () => {
      server.off('error', failed)
      resolve()
    }
    server.once('error', failed)
    server.once('listening', done)
    server.listen(port, host)
  })
}

function listenError(error: NodeJS.ErrnoException, port: number, host: string): AgentEvalOpsError {
  if (error.code === 'EADDRINUSE')
    return new AgentEvalOpsError('INFRA_FAILURE', `port ${port} on ${host} is already in use.`, {
      hint: 'Stop what listens there, or pass --port <n> (--port 0 picks any free port).',
      cause: error,
    })
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EACCES')
    return new AgentEvalOpsError('INFRA_FAILURE', `cannot listen on ${host}:${port} (${error.code}).`, {
      hint: 'Pass a --host this machine has (127.0.0.1 by default) and a --port above 1023, or --port 0.',
      cause: error,
    })
  return new AgentEvalOpsError('INFRA_FAILURE', `cannot listen on ${host}:${port}: ${errorMessage(error)}`, {
    cause: error,
  })
}

function send(
  res: ServerResponse,
  req: IncomingMessage,
  status: number,
  type: string,
  body: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Cache-Control': 'no-store',
    'Content-Type': type,
    'Content-Length': String(Buffer.byteLength(body)),
    ...extra,
  })
  res.end(req.method === 'HEAD' ? undefined : body)
}

function sendPage(req: IncomingMessage, res: ServerResponse, status: number, page: Page): void {
  send(res, req, status, 'text/html; charset=utf-8', page.html, { 'Content-Security-Policy': page.csp })
}

function json(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  send(res, req, status, 'application/json; charset=utf-8', JSON.stringify(body))
}
