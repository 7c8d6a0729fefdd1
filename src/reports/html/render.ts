import type { ReportGenerator, ReportInput } from '../../core/index.ts'
import { assertInlineSafe, contentSecurityPolicy, escapeHtml, jsonForScript } from './embed.ts'
import { pageData, type HtmlReportInput } from './page-model.ts'
import { PAGE_SCRIPT } from './page-script.ts'
import { PAGE_STYLE } from './page-style.ts'

/** The file name of the HTML report in a bundle. */
export const HTML_REPORT_FILE = 'report.html'

/**
 * The report as one self-contained HTML file that opens offline: the data as a JSON block, the page's own script
 * and style inline, and a Content-Security-Policy that allows exactly those two and fetches nothing. A pure
 * function of bundle data, like report.md.
 */
/** report.html as a reporter of the registry (`agentevalops report --format html`). */
export function htmlReportGenerator(): ReportGenerator<ReportInput> {
  return {
    format: HTML_REPORT_FILE,
    render: (input) => renderHtmlReport({ ...input, events: input.events ?? [] }),
  }
}

export function renderHtmlReport(input: HtmlReportInput): string {
  const script = assertInlineSafe(PAGE_SCRIPT, 'script')
  const style = assertInlineSafe(PAGE_STYLE, 'style')
  const data = pageData(input)
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(script, style))}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(`agentevalops · ${data.title}`)}</title>`,
    `<style>${style}</style>`,
    '</head>',
    '<body>',
    '<noscript>This report is drawn by its inline script. report.md and scores.json in the same bundle hold the same figures.</noscript>',
    '<main id="app"></main>',
    `<script type="application/json" id="data">${jsonForScript(data)}</script>`,
    `<script>${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n')
}
