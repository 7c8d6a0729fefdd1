import { formatFindings, readBundle } from '../../bundles/index.ts'
import { isAgentEvalOpsError, sha256, type RunSummary, type ScoresRecords } from '../../core/index.ts'
import { renderHtmlReport } from '../../reports/html/index.ts'
import { statsScorer, withGroupedHeadline } from '../../scorers/index.ts'
import type { Catalog } from '../catalog/index.ts'
import { readSmallFile } from '../catalog/bundle-small-files.ts'
import { runUrl, VIEW_ROUTES } from '../api.ts'
import { messagePage, type Page } from './pages.ts'

/** Rendered reports kept: one run's page can be megabytes (its rows), and a user looks at a few at a time. */
const CACHED_REPORTS = 4

/**
 * The report route's pages: one run's full report, rendered here from the bundle's records with the renderer of
 * `agentevalops report --format html`, never the bundle's own report.html (a hostile bundle's HTML could carry
 * script). Only a bundle that passes the whole validation is rendered; any other gets a page of its problems as
 * text. Rendered pages are kept by the digest of the manifest they were made from.
 */
export class ReportPages {
  private readonly pages = new Map<string, Promise<{ status: number; page: Page }>>()

  constructor(private readonly catalog: Catalog) {}

  /** The page of the catalog's folder `folder`; undefined when the catalog has no such folder. */
  async page(folder: string): Promise<{ status: number; page: Page } | undefined> {
    const row = this.catalog.get(folder)
    if (!row) return undefined
    if (row.run.entry.state !== 'valid') return invalid(folder, row.run.entry.problems)
    const manifest = await readSmallFile(row.dir, 'manifest.json')
    if (!manifest.ok) return invalid(folder, [`manifest.json: ${manifest.problem}`])
    const key = `${folder}\0${sha256(manifest.bytes)}`
    let page = this.pages.get(key)
    if (!page) {
      page = render(folder, row.dir)
      this.pages.set(key, page)
      // Oldest out first: a Map iterates in insertion order.
      while (this.pages.size > CACHED_REPORTS) this.pages.delete(this.pages.keys().next().value!)
      // A failure is not kept: the next request tries again.
      page.catch(() => this.pages.delete(key))
    }
    return page
  }
}

async function render(folder: string, dir: string): Promise<{ status: number; page: Page }> {
  let found
  try {
    found = await readBundle(dir, { mode: 'recover' })
  } catch (e) {
    if (isAgentEvalOpsError(e)) return invalid(folder, e.message.split('\n'))
    throw e
  }
  const { metadata, scores, events, problems } = found
  if (problems.length > 0 || !metadata || !scores) {
    return invalid(folder, formatFindings(problems, 50).split('\n'))
  }
  const html = renderHtmlReport({
    metadata,
    trials: scores.trials,
    summary: summaryOf(scores),
    events,
    // Served by view, the report links back to the runs list and to the run's page in the app.
    links: { home: VIEW_ROUTES.app, run: runUrl('', folder) },
  })
  return { status: 200, page: { html, csp: servedPolicy(html) } }
}

/** The summary a report shows, as `agentevalops report` makes it: grouped if it predates groups, computed for format 1. */
function summaryOf(scores: ScoresRecords): RunSummary {
  return scores.summary
    ? withGroupedHeadline(scores.summary, scores.trials)
    : statsScorer().summarize(scores.trials)
}

function invalid(folder: string, problems: readonly string[]): { status: number; page: Page } {
  return {
    status: 422,
    page: messagePage(
      `Run ${folder} is not a valid bundle`,
      `Its report is not shown. What is wrong with it (agentevalops validate-bundle lists every finding):`,
      problems,
    ),
  }
}

const HTML_ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
}

/**
 * The report carries its policy in a meta element (it opens from a file too); served, the same policy goes in the
 * header, where frame-ancestors also takes effect. The renderer is ours: its first meta policy is its own.
 */
function servedPolicy(html: string): string {
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html.slice(0, 64 * 1024))
  if (!meta) return "frame-ancestors 'none'"
  const own = meta[1]!.replace(/&(amp|lt|gt|quot|#39);/g, (e) => HTML_ENTITIES[e]!)
  return `${own}; frame-ancestors 'none'`
}
