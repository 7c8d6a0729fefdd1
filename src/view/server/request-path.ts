/** A request's path as the router sees it: decoded segments, and the query. */
export interface RequestPath {
  segments: string[]
  query: URLSearchParams
}

/**
 * The path of a request target, or null when it is one no route can have: not an absolute path, a backslash or NUL
 * anywhere (raw or percent-encoded), a segment that is `.` or `..` once decoded, or bad percent-encoding. Nothing
 * here is ever joined onto a file path; a run is looked up by name in the catalog. Refusing these outright keeps
 * every traversal attempt a plain 404, whatever a route would have made of it.
 */
export function parseRequestPath(target: string | undefined): RequestPath | null {
  if (target === undefined || !target.startsWith('/') || target.startsWith('//')) return null
  const q = target.indexOf('?')
  const rawPath = q === -1 ? target : target.slice(0, q)
  const rawQuery = q === -1 ? '' : target.slice(q + 1)
  if (/[\\\0]|%00|%5c/i.test(rawPath)) return null
  const segments: string[] = []
  const parts = rawPath.slice(1).split('/')
  // A trailing slash (`/trends/`) names the same page; an empty segment inside the path names none.
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop()
  for (const raw of parts) {
    let segment: string
    try {
      segment = decodeURIComponent(raw)
    } catch {
      return null
    }
    if (segment === '.' || segment === '..' || segment.includes('\\') || segment.includes('\0')) return null
    if (segment === '' && parts.length > 1) return null
    segments.push(segment)
  }
  let query: URLSearchParams
  try {
    query = new URLSearchParams(rawQuery)
  } catch {
    return null
  }
  return { segments: segments.length === 1 && segments[0] === '' ? [] : segments, query }
}
