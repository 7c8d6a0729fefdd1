import { render } from 'preact'
import { App } from './app.tsx'
import { readReport } from './read-report.ts'
import '../components/theme.css'
import './report.css'

/*
 * The one-file report's page: read the run from its data blocks, draw it, then mark it ready (`data-ready` on the
 * body, as on the tasks table, and the performance mark `agentevalops:ready`, which bench/html-report.mjs reads).
 * Preact's first render is synchronous, so the rows are in the DOM when the marks are set.
 */
const app = document.getElementById('app')!
try {
  render(<App report={readReport(document)} />, app)
  document.body.setAttribute('data-ready', 'true')
  performance.mark('agentevalops:ready')
} catch (error) {
  render(
    <p class="callout warn">{`This report could not be drawn: ${error instanceof Error ? error.message : String(error)}`}</p>,
    app,
  )
  throw error
}
