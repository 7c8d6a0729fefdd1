/**
 * The page's charts: horizontal bars as inline SVG, one bar per benchmark or per bin. Labels and value texts come
 * formatted in the data; this only scales and draws.
 *
 * Plain JavaScript inside String.raw: no backtick and no dollar-brace in it.
 */
export const CHARTS_SCRIPT = String.raw`
var CHART_WIDTH = 460;
var CHART_LABEL = 180;
var CHART_VALUE = 80;
var BAR_HEIGHT = 16;
var BAR_GAP = 6;

function clipLabel(text, max) {
  return text.length > max ? text.slice(0, max - 1) + '\u2026' : text;
}

function barChart(chart) {
  var bars = chart.bars;
  var max = bars.reduce(function (m, b) { return Math.max(m, b.value); }, 0) || 1;
  var room = CHART_WIDTH - CHART_LABEL - CHART_VALUE;
  var height = bars.length * (BAR_HEIGHT + BAR_GAP) + BAR_GAP;
  var root = svg('svg', {
    viewBox: '0 0 ' + CHART_WIDTH + ' ' + height,
    width: CHART_WIDTH,
    height: height,
    role: 'img',
    'aria-label': chart.title,
    'data-testid': 'chart-' + chart.id,
  });
  bars.forEach(function (bar, i) {
    var y = BAR_GAP + i * (BAR_HEIGHT + BAR_GAP);
    var width = bar.value > 0 ? Math.max(1, (room * bar.value) / max) : 0;
    root.appendChild(svg('g', { 'data-testid': 'bar', 'data-value': bar.value }, [
      svg('title', null, bar.label + ': ' + bar.text),
      svg('text', { x: CHART_LABEL - 6, y: y + BAR_HEIGHT - 4, 'text-anchor': 'end', class: 'chart-label' }, clipLabel(bar.label, 30)),
      svg('rect', { x: CHART_LABEL, y: y, width: width, height: BAR_HEIGHT, class: 'chart-bar' }),
      svg('text', { x: CHART_LABEL + width + 4, y: y + BAR_HEIGHT - 4, class: 'chart-value' }, bar.text),
    ]));
  });
  var body = bars.length > 0 ? root : h('p', { class: 'muted' }, 'Nothing to draw.');
  return h('figure', { class: 'chart' }, [h('figcaption', null, chart.title), body]);
}
`
