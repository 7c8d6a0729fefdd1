export { HTML_REPORT_FILE, htmlReportGenerator, renderHtmlReport } from './render.ts'
export type { HtmlReportInput } from './page-model.ts'
export type { HtmlReportTrial } from './trial-data.ts'
export type { PageData } from './page-data.ts'
