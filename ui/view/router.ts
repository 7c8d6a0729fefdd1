import { VIEW_ROUTES } from '../../src/view/api.ts'

/**
 * The app's pages by path, so every page has a URL a CI log or a PR comment can carry. A task or trial URL is the
 * run's report opened at that task: the report app reads `#task=<key>&trial=<n>`.
 */
export type Route =
  | { page: 'runs' }
  | { page: 'trends'; benchmark: string | null; target: string | null }
  | { page: 'history'; benchmark: string | null; target: string | null }
  | { page: 'compare'; baseline: string | null; candidate: string | null }
  | { page: 'run'; run: string }
  /** A task or trial: leave the app for the run's report at that task. */
  | { page: 'report'; href: string }
  /** A path the server answers itself (the report, the API): the browser goes there. */
  | { page: 'outside' }
  | { page: 'not-found'; path: string }

export function routeOf(pathname: string, search: string): Route {
  const query = new URLSearchParams(search)
  const param = (name: string): string | null => query.get(name) || null
  const parts = segments(pathname)
  if (!parts) return { page: 'not-found', path: pathname }
  const [first, run, third, task, fifth, trial, ...rest] = parts
  if (first === undefined) return { page: 'runs' }
  if (first === 'api') return { page: 'outside' }
  if (parts.length === 1) {
    if (first === 'trends') return { page: 'trends', benchmark: param('benchmark'), target: param('target') }
    if (first === 'history')
      return { page: 'history', benchmark: param('benchmark'), target: param('target') }
    if (first === 'compare')
      return { page: 'compare', baseline: param('baseline'), candidate: param('candidate') }
  }
  if (first === 'runs' && run !== undefined && rest.length === 0) {
    if (third === undefined) return { page: 'run', run }
    if (third === 'report' && task === undefined) return { page: 'outside' }
    if (third === 'tasks' && task !== undefined) {
      if (fifth === undefined) return { page: 'report', href: reportHref(run, task, null) }
      if (fifth === 'trials' && trial !== undefined && /^\d+$/.test(trial)) {
        return { page: 'report', href: reportHref(run, task, Number(trial)) }
      }
    }
  }
  return { page: 'not-found', path: pathname }
}

/** The run's report, opened at a task (and trial) when given. */
export function reportHref(run: string, taskKey: string | null, trial: number | null): string {
  const page = VIEW_ROUTES.report.replace(':run', encodeURIComponent(run))
  if (taskKey === null) return page
  const hash = `#task=${encodeURIComponent(taskKey)}`
  return trial === null ? page + hash : `${page}${hash}&trial=${trial}`
}

/** The path's segments, decoded; null when one is not valid percent-encoding. A trailing slash is ignored. */
function segments(pathname: string): string[] | null {
  try {
    return pathname
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s))
  } catch {
    return null
  }
}

/** A query string from the given pairs, leaving out the empty ones: `?benchmark=toy&target=mock`. */
export function withQuery(path: string, params: Record<string, string | null | undefined>): string {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value) query.set(name, value)
  const text = query.toString()
  return text ? `${path}?${text}` : path
}
