export { renderMarkdownReport, type MarkdownReportInput } from './markdown'
export { escapeCell, markdownTable } from './markdown-table'
