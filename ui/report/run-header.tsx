import { Facts } from '../components/facts.tsx'
import type { PageData } from '../../src/reports/html/page-data.ts'

/** The run: its title, its facts, the caveat when there is one, and the way back to the runs list when served. */
export function RunHeader({ data }: { data: PageData }) {
  const home = data.links ? safeHref(data.links.home) : null
  return (
    <header data-testid="run">
      {home !== null && (
        <p class="home">
          <a href={home} data-testid="home-link">
            ← all runs
          </a>
        </p>
      )}
      <h1>{data.title}</h1>
      <Facts pairs={data.run} testid="run-facts" />
      {data.caveat && (
        <p class="callout warn" data-testid="caveat">
          {data.caveat}
        </p>
      )}
    </header>
  )
}

/** A link the page may follow: relative, or http(s). Anything else (javascript:, data:) is not shown. */
export function safeHref(href: string): string | null {
  // As a browser reads an address: control characters and spaces (leading, or tabs and newlines inside) do not count.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href.replace(/[\u0000-\u0020]/g, ''))
  return scheme === null || /^https?$/i.test(scheme[1]!) ? href : null
}
