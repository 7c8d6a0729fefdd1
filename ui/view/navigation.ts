import { useEffect, useState } from 'preact/hooks'
import { routeOf } from './router.ts'

/**
 * Moving between the app's pages without a reload: links stay real hrefs (a URL can be shared, opened in a new
 * tab), and a plain click on one that the app routes is turned into a History API step.
 */

const NAVIGATED = 'agentevalops:navigated'

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', href)
  else history.pushState(null, '', href)
  window.dispatchEvent(new Event(NAVIGATED))
}

/** The current location, re-read on back/forward and on the app's own navigations. */
export function useLocation(): { pathname: string; search: string } {
  const read = () => ({ pathname: location.pathname, search: location.search })
  const [where, setWhere] = useState(read)
  useEffect(() => {
    const update = () => setWhere(read())
    window.addEventListener('popstate', update)
    window.addEventListener(NAVIGATED, update)
    return () => {
      window.removeEventListener('popstate', update)
      window.removeEventListener(NAVIGATED, update)
    }
  }, [])
  return where
}

/**
 * Clicks on links inside `root`: a page of the app → a History API step; a task or trial → the run's report at it
 * (`leave`); anything else (the report, another origin, a modified click) is left to the browser.
 */
export function interceptLinks(root: HTMLElement, leave: (href: string) => void): () => void {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0) return
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    const anchor = (event.target as Element | null)?.closest?.('a')
    const href = anchor?.getAttribute('href')
    if (!anchor || !href || anchor.hasAttribute('download')) return
    const target = anchor.getAttribute('target')
    if (target && target !== '_self') return
    const url = new URL(href, location.href)
    if (url.origin !== location.origin) return
    const route = routeOf(url.pathname, url.search)
    if (route.page === 'outside') return
    event.preventDefault()
    if (route.page === 'report') leave(route.href)
    else navigate(url.pathname + url.search + url.hash)
  }
  root.addEventListener('click', onClick)
  return () => root.removeEventListener('click', onClick)
}
