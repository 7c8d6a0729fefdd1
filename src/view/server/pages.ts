import { assertInlineSafe, cspHash, escapeHtml } from '../../reports/html/embed.ts'
import { uiAsset } from '../../reports/ui-bundle/index.ts'

/** An HTML page and the Content-Security-Policy it is served under (as a header, and in the page itself). */
export interface Page {
  html: string
  csp: string
}

/**
 * The policy of the view's pages: nothing but the page's own inline script and style runs or applies (by hash), and
 * the only place it may fetch from is this server (the JSON routes and the events stream). No framing, no forms, no
 * base URL; HTML-parsing DOM sinks refused (Trusted Types), as in the report.
 */
function policy(script: string | null, style: string): string {
  return [
    "default-src 'none'",
    script === null ? "script-src 'none'" : `script-src ${cspHash(script)}`,
    `style-src ${cspHash(style)}`,
    'img-src data:',
    script === null ? "connect-src 'none'" : "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
  ].join('; ')
}

function document(title: string, csp: string, style: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(metaPolicy(csp))}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${assertInlineSafe(style, 'style')}</style>`,
    '</head>',
    '<body>',
    body,
    '</body>',
    '</html>',
    '',
  ].join('\n')
}

/**
 * The policy as the page's meta element carries it: without frame-ancestors, which a browser ignores there (Chromium
 * logs an error saying so on every page). The header, where it takes effect, keeps it.
 */
function metaPolicy(csp: string): string {
  return csp
    .split('; ')
    .filter((directive) => !directive.startsWith('frame-ancestors '))
    .join('; ')
}

let app: Page | undefined

/** The view app: one page for every app path (it routes by the path itself), the built ui/view inline. */
export function appPage(): Page {
  if (!app) {
    const { script, style } = uiAsset('view')
    const csp = policy(script, style)
    const body = [
      '<noscript>agentevalops view is drawn by its script; the same data is at /api/runs.</noscript>',
      '<main id="app"></main>',
      `<script>${assertInlineSafe(script, 'script')}</script>`,
    ].join('\n')
    app = { html: document('agentevalops view', csp, style, body), csp }
  }
  return app
}

const MESSAGE_STYLE =
  'body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem}' +
  'pre{white-space:pre-wrap;background:#f4f4f4;padding:1rem;overflow-wrap:anywhere}'

/**
 * A page of text and no script: why a run cannot be shown (its problems, one a line) or a page that does not
 * exist. Every string is escaped; a problem quoting a bundle's hostile content stays text.
 */
export function messagePage(title: string, lead: string, lines: readonly string[] = []): Page {
  const csp = policy(null, MESSAGE_STYLE)
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>${escapeHtml(lead)}</p>`,
    lines.length > 0 ? `<pre data-testid="problems">${escapeHtml(lines.join('\n'))}</pre>` : '',
    '<p><a href="/">All runs</a></p>',
  ].join('\n')
  return { html: document(`agentevalops · ${title}`, csp, MESSAGE_STYLE, body), csp }
}
