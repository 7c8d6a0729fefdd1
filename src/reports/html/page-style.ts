/**
 * The page's one inline stylesheet. Row heights of the tasks table are fixed here: the table draws only the rows
 * in view and places them by that height. No fonts, images or imports: nothing may be fetched.
 */
export const PAGE_STYLE = String.raw`
:root {
  --bg: #ffffff; --fg: #1b1f24; --muted: #5b6470; --line: #d7dbe0; --head: #f3f5f7; --link: #0b5cad;
  --accent: #d97706; --hl: #fff4d6; --pass: #17803d; --fail: #b42318; --warn-bg: #fff4e5; --bar: #4c78a8;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15181c; --fg: #e6e8eb; --muted: #9aa3ad; --line: #30363d; --head: #1e2329; --link: #6cb0f5;
    --accent: #f59e0b; --hl: #3a2f12; --pass: #4ade80; --fail: #f87171; --warn-bg: #33260f; --bar: #6c9bd2;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; padding: 0 24px 48px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
}
main { max-width: 1280px; margin: 0 auto; }
h1 { font-size: 22px; margin: 20px 0 8px; word-break: break-all; }
h2 { font-size: 18px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 18px 0 6px; }
h4 { font-size: 13px; margin: 14px 0 6px; text-transform: uppercase; letter-spacing: 0.03em; color: var(--muted); }
pre { margin: 0; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; word-break: break-word; }
.muted { color: var(--muted); }
.small { font-size: 12px; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(280px, 1fr)); gap: 2px 24px; margin: 0; }
.facts div { display: flex; gap: 8px; min-width: 0; }
.facts dt { color: var(--muted); flex: none; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.toc { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 14px 0 0; font-size: 13px; }
a, .link { color: var(--link); }
button { font: inherit; color: inherit; }
.link { padding: 0; border: 0; background: none; cursor: pointer; text-decoration: underline; line-height: inherit; text-align: left; }
.headline { font-size: 16px; }
.rate { font-size: 28px; }
.callout { padding: 8px 12px; border-left: 4px solid var(--accent); background: var(--warn-bg); margin: 10px 0; }
.tasks-inline { display: flex; flex-wrap: wrap; gap: 2px 14px; list-style: none; padding: 0; margin: 6px 0 0; }
.table-tools { display: flex; align-items: center; gap: 12px; margin: 4px 0 6px; }
.filter { width: 260px; padding: 4px 8px; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); font: inherit; }
.count { color: var(--muted); font-size: 12px; }
.scroller { max-height: 70vh; overflow: auto; border: 1px solid var(--line); border-radius: 4px; }
table { border-collapse: collapse; }
table.data { width: 100%; }
.data th { position: sticky; top: 0; z-index: 1; background: var(--head); text-align: left; padding: 0; border-bottom: 1px solid var(--line); white-space: nowrap; }
.data th.num { text-align: right; }
.sort { width: 100%; padding: 6px 8px; border: 0; background: none; cursor: pointer; font-weight: 600; text-align: inherit; }
.data th[aria-sort='ascending'] .sort::after { content: ' \25B2'; }
.data th[aria-sort='descending'] .sort::after { content: ' \25BC'; }
.data tr.r td {
  height: 28px; padding: 0 8px; line-height: 27px; border-bottom: 1px solid var(--line);
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 32em;
}
.data tr.r:hover { background: var(--head); }
.data tr.spacer td { padding: 0; border: 0; }
.data tr.empty td { padding: 8px; color: var(--muted); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.charts { display: flex; flex-wrap: wrap; gap: 16px 32px; margin-bottom: 12px; }
.chart { margin: 0; }
.chart figcaption { font-weight: 600; margin-bottom: 4px; }
.chart-bar { fill: var(--bar); }
.chart-label, .chart-value { fill: var(--fg); font-size: 11px; }
.task-detail { margin-top: 20px; padding: 4px 16px 16px; border: 2px solid var(--line); border-radius: 6px; }
.detail-head { display: flex; align-items: baseline; justify-content: space-between; gap: 16px; }
.detail-head h2 { border: 0; word-break: break-all; }
.close { padding: 2px 10px; border: 1px solid var(--line); border-radius: 4px; background: var(--head); cursor: pointer; }
details.trial { border: 1px solid var(--line); border-radius: 4px; margin: 8px 0; }
details.trial > summary { padding: 6px 10px; cursor: pointer; background: var(--head); }
details.trial.not-passed > summary { border-left: 4px solid var(--fail); }
details.trial.passed > summary { border-left: 4px solid var(--pass); }
.trial-body { padding: 0 12px 12px; }
.block { padding: 8px; border: 1px solid var(--line); border-radius: 4px; background: var(--head); max-height: 24em; overflow: auto; }
.scores { list-style: none; padding: 0; margin: 0; }
.score { padding: 6px 0; border-bottom: 1px dashed var(--line); }
.findings { margin: 4px 0 0; padding-left: 20px; }
.tag { display: inline-block; padding: 0 6px; border-radius: 3px; background: var(--head); border: 1px solid var(--line); font-size: 12px; }
.s-pass, .v-PASS, .v-GO, .o-passed { color: var(--pass); font-weight: 600; }
.s-FAIL, .s-error, .v-FAIL, .v-NO_GO { color: var(--fail); font-weight: 600; }
.v-WARN, .v-INCONCLUSIVE, .v-INSUFFICIENT_EVIDENCE { color: var(--accent); font-weight: 600; }
.error { color: var(--fail); }
.cite { margin-left: 2px; }
.cite.missing { color: var(--muted); text-decoration: line-through; }
.timeline-wrap { overflow-x: auto; }
table.timeline { width: 100%; font-size: 13px; }
.timeline th { text-align: left; padding: 4px 8px; background: var(--head); border-bottom: 1px solid var(--line); white-space: nowrap; }
.timeline td { padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
.timeline td.detail { width: 60%; overflow-wrap: anywhere; }
.timeline tr.step.hl td { background: var(--hl); }
.timeline tr.step.hl { outline: 2px solid var(--accent); outline-offset: -2px; }
.timeline tr.k-agent-final_answer td { font-weight: 600; }
.timeline tr.k-evaluator-score td, .timeline tr.k-evaluator-model_call td, .timeline tr.k-policy-verdict td { color: var(--muted); }
.cited-by { display: inline-block; margin-left: 6px; padding: 0 5px; border-radius: 3px; font-size: 11px; background: var(--warn-bg); border: 1px solid var(--accent); }
.expand { margin-left: 6px; padding: 0 6px; font-size: 11px; border: 1px solid var(--line); border-radius: 3px; background: var(--head); cursor: pointer; }
pre.full { margin-top: 4px; padding: 6px; border: 1px solid var(--line); background: var(--head); max-height: 30em; overflow: auto; }
.phases { margin: 0; padding-left: 20px; }
[hidden] { display: none !important; }
`
