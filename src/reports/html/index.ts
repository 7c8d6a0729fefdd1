export {
  HTML_REPORT_FILE,
  htmlReportGenerator,
  htmlTrialRow,
  renderHtmlReport,
  renderHtmlReportFromRows,
  writeHtmlReportFromRows,
  type RenderFromRowsOptions,
} from './render.ts'
export type { HtmlReportInput } from './page-model.ts'
export { htmlRunPart } from './page-model.ts'
export { HtmlReportAggregates, taskTokens, type HtmlReportTotals } from './report-aggregates.ts'
export { ROWS_BLOCK_CHARS, type RowsSource } from './rows-blocks.ts'
export type { HtmlReportTrial } from './trial-data.ts'
export type { PageData, ReportLinks, TrialData } from './page-data.ts'
