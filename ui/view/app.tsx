import { useEffect, useMemo, useRef } from 'preact/hooks'
import { viewClient, type ViewClient } from './api-client.ts'
import { Problem } from './components/problem.tsx'
import { Services, useFeedStatus, type ViewServices } from './context.ts'
import { interceptLinks, useLocation } from './navigation.ts'
import { ComparePage } from './pages/compare.tsx'
import { HistoryPage } from './pages/history.tsx'
import { RunPage } from './pages/run.tsx'
import { RunsListPage } from './pages/runs-list.tsx'
import { TrendsPage } from './pages/trends.tsx'
import { routeOf, type Route } from './router.ts'
import { LiveFeed, RunsStore } from './store.ts'

export interface AppProps {
  client?: ViewClient
  /**
   * Leaves the app for a page the server makes (a run's report at a task): the window goes there; `replace` when
   * the app's own URL was only an alias of it, so Back does not return to it.
   */
  leave?: (href: string, replace: boolean) => void
}

function leaveWindow(href: string, replace: boolean): void {
  if (replace) location.replace(href)
  else location.assign(href)
}

/** The view app: one runs list and one events stream for every page, the page chosen by the path. */
export function App({ client, leave = leaveWindow }: AppProps) {
  const services = useMemo<ViewServices>(() => {
    const c = client ?? viewClient()
    const feed = new LiveFeed(c)
    return { client: c, feed, runs: new RunsStore(c, feed) }
  }, [client])
  useEffect(() => {
    services.feed.start()
    return () => services.feed.stop()
  }, [services])
  const root = useRef<HTMLDivElement>(null)
  useEffect(
    () => (root.current ? interceptLinks(root.current, (href) => leave(href, false)) : undefined),
    [leave],
  )
  const { pathname, search } = useLocation()
  const route = routeOf(pathname, search)
  return (
    <Services.Provider value={services}>
      <div ref={root} class="view">
        <Header />
        {/* The server's page mounts the app in its <main>: one main landmark, not two. */}
        <div class="view-main">
          <Page route={route} leave={leave} />
        </div>
      </div>
    </Services.Provider>
  )
}

function Header() {
  const { status, problems } = useFeedStatus()
  return (
    <header class="view-head">
      <nav class="toc" aria-label="Pages">
        <a href="/">Runs</a>
        <a href="/trends">Trends</a>
        <a href="/history">History</a>
        <a href="/compare">Compare</a>
      </nav>
      <span class={`feed feed-${status}`} data-testid="feed-status">
        {status === 'open' ? 'live' : status === 'connecting' ? 'connecting…' : `live updates ${status}`}
      </span>
      {problems.map((p, i) => (
        <Problem key={i} text={p} testid="feed-problem" />
      ))}
    </header>
  )
}

function Page({ route, leave }: { route: Route; leave: (href: string, replace: boolean) => void }) {
  switch (route.page) {
    case 'runs':
      return <RunsListPage />
    case 'trends':
      return <TrendsPage benchmark={route.benchmark} target={route.target} />
    case 'history':
      return <HistoryPage benchmark={route.benchmark} target={route.target} />
    case 'compare':
      return <ComparePage baseline={route.baseline} candidate={route.candidate} />
    case 'run':
      return <RunPage run={route.run} />
    case 'report':
      return <Leaving href={route.href} leave={leave} />
    case 'outside':
      // The server answers these paths itself; the app sees one only when something between them is wrong.
      return (
        <Problem
          text={`${location.pathname} is served by the view server, not this page: reload it.`}
          testid="not-found"
        />
      )
    case 'not-found':
      return <Problem text={`No page at ${route.path}. The runs list is at /.`} testid="not-found" />
  }
}

/** A task or trial URL: the run's report opens at it, replacing this page. */
function Leaving({ href, leave }: { href: string; leave: (href: string, replace: boolean) => void }) {
  useEffect(() => leave(href, true), [href, leave])
  return (
    <p data-testid="leaving">
      Opening <a href={href}>{href}</a>…
    </p>
  )
}
