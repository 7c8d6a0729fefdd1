export {
  MARKDOWN_REPORT_FILE,
  markdownReportGenerator,
  renderMarkdownReport,
  type MarkdownReportInput,
} from './markdown.ts'
export { escapeCell, markdownTable } from './markdown-table.ts'
export {
  HTML_REPORT_FILE,
  htmlReportGenerator,
  renderHtmlReport,
  type HtmlReportInput,
} from './html/index.ts'
