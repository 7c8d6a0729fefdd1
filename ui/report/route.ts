/*
 * Deep links into the page: `#task=<task key>` opens a task, `#task=<key>&trial=<n>` one of its trials, so a URL
 * (a CI log, a PR comment, the view server's links) points at what it names. Other fragments (#flaky, a step's
 * anchor) are the page's own and route nowhere.
 */

export interface Route {
  task: string
  trial: number | null
}

/** The route a location.hash names, or null when it names none. */
export function parseRoute(hash: string): Route | null {
  if (!hash.startsWith('#task=')) return null
  const params = new URLSearchParams(hash.slice(1))
  const task = params.get('task')
  if (!task) return null
  const trial = params.get('trial')
  const n = trial === null || !/^\d+$/.test(trial) ? null : Number(trial)
  return { task, trial: n }
}

/** The location.hash of a route. */
export function routeHash(route: Route): string {
  const task = `#task=${encodeURIComponent(route.task)}`
  return route.trial === null ? task : `${task}&trial=${route.trial}`
}
