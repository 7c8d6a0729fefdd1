(function () {
'use strict';

var SVG_NS = 'http://www.w3.org/2000/svg';
var PREVIEW_CHARS = 160;
var BLOCK_CHARS = 2000;

function setAttrs(el, attrs) {
  if (!attrs) return;
  Object.keys(attrs).forEach(function (name) {
    var value = attrs[name];
    if (value === null || value === undefined || value === false) return;
    el.setAttribute(name, value === true ? '' : String(value));
  });
}

function append(el, children) {
  if (children === null || children === undefined || children === false) return;
  if (Array.isArray(children)) {
    children.forEach(function (child) { append(el, child); });
    return;
  }
  el.appendChild(typeof children === 'object' ? children : document.createTextNode(String(children)));
}

function h(tag, attrs, children) {
  var el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function svg(tag, attrs, children) {
  var el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function str(value) {
  return value === null || value === undefined ? '' : String(value);
}

function json(value, pretty) {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value, null, pretty ? 2 : 0);
}

function onClick(el, handler) {
  el.addEventListener('click', handler);
  return el;
}

function button(label, attrs, handler) {
  var el = h('button', Object.assign({ type: 'button' }, attrs || {}), label);
  return onClick(el, handler);
}

/** A section with a heading, findable by its id and test id. */
function section(id, title, children) {
  return h('section', { id: id, 'data-testid': 'section-' + id }, [h('h2', null, title), children]);
}

/**
 * Text on one line, cut when long, with a button that shows all of it in a <pre>: 'full' when given (pretty JSON
 * of arguments and results), else the text itself.
 */
function expandable(text, full, testid) {
  full = full === undefined || full === null ? text : full;
  var flat = text.replace(/\s+/g, ' ');
  var richer = full !== text && full.indexOf('\n') >= 0;
  if (flat.length <= PREVIEW_CHARS && text.indexOf('\n') < 0 && !richer) {
    return h('span', { class: 'val', 'data-testid': testid }, text);
  }
  var preview = h('span', { class: 'val' }, flat.length > PREVIEW_CHARS ? flat.slice(0, PREVIEW_CHARS - 1) + '\u2026' : flat);
  var box = h('span', { class: 'expandable', 'data-testid': testid }, preview);
  var pre = null;
  var toggle = button('expand', { class: 'expand', 'data-testid': 'expand', 'aria-expanded': 'false' }, function () {
    if (!pre) {
      pre = h('pre', { class: 'full', 'data-testid': 'full' }, full);
      box.appendChild(pre);
    } else {
      pre.hidden = !pre.hidden;
    }
    preview.hidden = !pre.hidden;
    toggle.textContent = pre.hidden ? 'expand' : 'collapse';
    toggle.setAttribute('aria-expanded', String(!pre.hidden));
  });
  box.insertBefore(toggle, preview.nextSibling);
  return box;
}

/** A block of text (an answer, an error) in a <pre>, its start only when long, with a button for the rest. */
function textBlock(text, testid) {
  if (text.length <= BLOCK_CHARS) return h('pre', { class: 'block', 'data-testid': testid }, text);
  var pre = h('pre', { class: 'block', 'data-testid': testid }, text.slice(0, BLOCK_CHARS) + '\u2026');
  var more = button('show all ' + text.length + ' characters', { class: 'expand' }, function () {
    pre.textContent = text;
    more.remove();
  });
  return h('div', null, [pre, more]);
}

/** Task names that open their task, the first 'max' of them, then how many more of 'total'. */
function taskList(links, total, testid, max, openTask) {
  var shown = links.slice(0, max).map(function (link) {
    var label = link.task === null
      ? h('span', null, link.label)
      : button(link.label, { class: 'link', 'data-testid': 'open-task' }, function () { openTask(link.task); });
    return h('li', { 'data-testid': 'task-link' }, label);
  });
  if (total > shown.length) shown.push(h('li', { class: 'more' }, '\u2026 and ' + (total - shown.length) + ' more'));
  return h('ul', { class: 'tasks-inline', 'data-testid': testid }, shown);
}


var ROW_HEIGHT = 28;
var OVERSCAN = 10;

function compareCells(a, b, dir) {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return (a < b ? -1 : a > b ? 1 : 0) * dir;
}

function dataTable(spec, openTask) {
  var rows = spec.rows;
  var columns = spec.columns;
  var all = rows.map(function (_, i) { return i; });
  var order = all;
  var shown = all;
  var query = '';
  var haystack = null;
  var sortColumn = -1;
  var sortDir = 1;
  var rowHeight = ROW_HEIGHT;
  var measured = false;
  var drawn = { first: -1, last: -1 };
  var pending = false;

  var heads = columns.map(function (column, i) {
    var sort = button(column.label, { class: 'sort', 'data-testid': 'sort-' + column.id, title: 'Sort by ' + column.label }, function () {
      sortBy(i);
    });
    return h('th', { scope: 'col', class: column.numeric ? 'num' : null, 'data-col': column.id, 'aria-sort': 'none' }, sort);
  });
  var thead = h('thead', null, h('tr', null, heads));
  var tbody = h('tbody');
  var table = h('table', { class: 'data', 'data-testid': 'table-' + spec.id, 'data-rows': rows.length }, [thead, tbody]);
  var scroller = h('div', { class: 'scroller', 'data-testid': 'scroll-' + spec.id }, table);
  var filter = h('input', {
    type: 'search',
    class: 'filter',
    placeholder: 'Filter ' + spec.noun + ' rows',
    'aria-label': 'Filter ' + spec.noun + ' rows',
    'data-testid': 'filter-' + spec.id,
  });
  var count = h('span', { class: 'count', 'data-testid': 'count-' + spec.id });
  var el = h('div', { class: 'table-wrap' }, [h('div', { class: 'table-tools' }, [filter, count]), scroller]);

  filter.addEventListener('input', function () {
    query = filter.value.trim().toLowerCase();
    apply();
  });
  scroller.addEventListener('scroll', schedule, { passive: true });
  window.addEventListener('resize', schedule);

  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      draw(false);
    });
  }

  function sortBy(i) {
    if (sortColumn === i) sortDir = -sortDir;
    else {
      sortColumn = i;
      sortDir = 1;
    }
    var values = rows.map(function (row) { return row.v[i]; });
    order = all.slice().sort(function (a, b) {
      return compareCells(values[a], values[b], sortDir) || a - b;
    });
    heads.forEach(function (th, k) {
      th.setAttribute('aria-sort', k !== i ? 'none' : sortDir === 1 ? 'ascending' : 'descending');
    });
    apply();
  }

  function apply() {
    filterRows();
    scroller.scrollTop = 0;
    draw(true);
  }

  // The first drawing, at the top: it reads no layout, so none is forced before the page's first paint.
  function start() {
    filterRows();
    draw(true, true);
  }

  function filterRows() {
    if (query) {
      if (!haystack) haystack = rows.map(function (row) { return row.t.join('\u0001').toLowerCase(); });
      shown = order.filter(function (i) { return haystack[i].indexOf(query) >= 0; });
    } else {
      shown = order;
    }
    table.setAttribute('data-rows', String(shown.length));
    count.textContent = (shown.length === rows.length ? '' : shown.length + ' of ') + rows.length + ' ' + (rows.length === 1 ? spec.noun : spec.nouns);
  }

  function spacer(height) {
    var td = h('td', { colspan: columns.length });
    td.style.height = height + 'px';
    return h('tr', { class: 'spacer', 'aria-hidden': 'true' }, td);
  }

  function rowElement(index) {
    var row = rows[index];
    var tr = h('tr', { class: 'r', 'data-testid': 'row', 'data-key': row.key });
    columns.forEach(function (column, i) {
      var text = row.t[i];
      var content = column.opensTask && row.task !== undefined
        ? button(text, { class: 'link', 'data-testid': 'open-task' }, function () { openTask(row.task); })
        : text;
      tr.appendChild(h('td', { class: column.numeric ? 'num' : null, 'data-testid': 'cell-' + column.id, title: text }, content));
    });
    return tr;
  }

  function draw(force, atTop) {
    var top = atTop ? 0 : Math.max(0, scroller.scrollTop - thead.offsetHeight);
    var view = atTop ? window.innerHeight : scroller.clientHeight || window.innerHeight;
    var first = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
    var last = Math.min(shown.length, Math.ceil((top + view) / rowHeight) + OVERSCAN);
    if (!force && first === drawn.first && last === drawn.last) return;
    drawn = { first: first, last: last };
    var parts = [];
    if (first > 0) parts.push(spacer(first * rowHeight));
    for (var k = first; k < last; k++) parts.push(rowElement(shown[k]));
    if (last < shown.length) parts.push(spacer((shown.length - last) * rowHeight));
    if (shown.length === 0) parts.push(h('tr', { class: 'empty' }, h('td', { colspan: columns.length }, 'No ' + spec.noun + ' matches.')));
    tbody.replaceChildren.apply(tbody, parts);
    if (!measured && !atTop && last > first) {
      // The stylesheet fixes the row height; a zoomed or restyled page may still differ, so measure it once.
      measured = true;
      var actual = tbody.querySelector('tr.r').getBoundingClientRect().height;
      if (actual > 0 && Math.abs(actual - rowHeight) > 0.5) {
        rowHeight = actual;
        draw(true);
      }
    }
  }

  return { el: el, table: table, start: start };
}


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


var STEP_CHUNK = 500;
var highlighted = null;

function describeEvent(kind, p) {
  p = p && typeof p === 'object' ? p : {};
  switch (kind) {
    case 'agent.plan':
    case 'agent.observation':
      return { who: '', text: str(p.text) };
    case 'agent.model_call': {
      var parts = [];
      if (p.status === 'error') parts.push('failed attempt' + (p.attempt ? ' ' + p.attempt : '') + (p.error ? ': ' + p.error : ''));
      if (p.inputTokens !== undefined || p.outputTokens !== undefined) parts.push('in ' + str(p.inputTokens) + ' / out ' + str(p.outputTokens) + ' tokens');
      if (p.stopReason) parts.push('stop: ' + p.stopReason);
      if (p.text) parts.push(str(p.text));
      return { who: str(p.model), text: parts.join(' \u00b7 ') };
    }
    case 'agent.tool_call':
      return { who: str(p.tool), text: 'args: ' + json(p.args), full: json(p.args, true) };
    case 'agent.tool_result':
      return { who: str(p.tool), text: (p.isError ? 'error: ' : 'result: ') + json(p.result), full: json(p.result, true) };
    case 'agent.final_answer':
      return { who: '', text: str(p.answer) };
    case 'agent.terminal':
      return { who: '', text: str(p.terminatedBy) + (p.success ? ', success' : ', no success') + (p.thrown ? ', threw ' + str(p.thrown.type) : '') + (p.error ? ': ' + p.error : '') };
    case 'evaluator.score':
      return { who: str(p.evaluatorId), text: 'score ' + str(p.score) + (p.passed ? ', passed' : ', failed') + (p.thrown ? ', threw ' + str(p.thrown.type) : '') };
    case 'evaluator.model_call':
      return {
        who: str(p.evaluatorId) + ' \u00b7 ' + str(p.model),
        text: str(p.status) + ', ' + str(p.latencyMs) + ' ms' + (p.error ? ': ' + p.error : ''),
      };
    case 'policy.verdict':
      return { who: str(p.checkerId), text: str(p.verdict) };
    case 'cost.tick':
      return { who: '', text: str(p.note) };
    default:
      return { who: '', text: json(p), full: json(p, true) };
  }
}

/** Step number to who cited it (evaluators, their findings, policy findings). */
function citationsOf(trial) {
  var cited = new Map();
  function add(steps, label) {
    steps.forEach(function (step) {
      if (!cited.has(step)) cited.set(step, []);
      if (cited.get(step).indexOf(label) < 0) cited.get(step).push(label);
    });
  }
  trial.scores.forEach(function (s) {
    add(s.citations || [], s.evaluator);
    (s.findings || []).forEach(function (f) { add(f.citations || [], s.evaluator + ': ' + f.type); });
  });
  (trial.verdicts || []).forEach(function (v) {
    (v.findings || []).forEach(function (f) { add(f.citations || [], v.checker + ': ' + f.type); });
  });
  return cited;
}

function stepId(ti, step) {
  return 's-' + ti + '-' + step;
}

function eventRow(ti, event, cited) {
  var step = event[0];
  var kind = typeof event[2] === 'number' ? DATA.kinds[event[2]] : event[2];
  var d = describeEvent(kind, event[3]);
  var notes = (cited.get(step) || []).map(function (label) {
    return h('span', { class: 'cited-by', 'data-testid': 'cited-by' }, 'cited by ' + label);
  });
  return h('tr', { id: stepId(ti, step), class: 'step k-' + kind.replace('.', '-'), 'data-testid': 'step', 'data-step': step, 'data-kind': kind, tabindex: '-1' }, [
    h('td', { class: 'num' }, String(step)),
    h('td', { class: 'num' }, '+' + (event[1] / 1000).toFixed(3) + ' s'),
    h('td', null, kind),
    h('td', { 'data-testid': 'step-who' }, d.who),
    h('td', { class: 'detail' }, [expandable(d.text, d.full, 'step-detail'), notes]),
    h('td', { class: 'num' }, event[4] || ''),
  ]);
}

function timeline(ti, trial) {
  var events = trial.events;
  var cited = citationsOf(trial);
  var rows = new Map();
  var rendered = 0;
  var tbody = h('tbody');
  var more = button('', { class: 'expand', 'data-testid': 'more-steps' }, function () { renderUpTo(events.length); });
  function renderUpTo(n) {
    var end = Math.min(n, events.length);
    var fragment = document.createDocumentFragment();
    for (; rendered < end; rendered++) {
      var row = eventRow(ti, events[rendered], cited);
      if (!rows.has(events[rendered][0])) rows.set(events[rendered][0], row);
      fragment.appendChild(row);
    }
    tbody.appendChild(fragment);
    more.hidden = rendered >= events.length;
    more.textContent = 'show ' + (events.length - rendered) + ' more steps';
  }
  renderUpTo(STEP_CHUNK);
  var head = h('thead', null, h('tr', null, ['Step', 'Time', 'Kind', 'Model / tool', 'Details', 'Usage'].map(function (label) {
    return h('th', { scope: 'col' }, label);
  })));
  var el = events.length === 0
    ? h('p', { class: 'muted', 'data-testid': 'timeline-empty' }, 'No trace events for this trial.')
    : h('div', { class: 'timeline-wrap' }, [
        h('table', { class: 'timeline', 'data-testid': 'timeline', 'data-trial': trial.trial, 'data-steps': events.length }, [head, tbody]),
        more,
      ]);
  return {
    el: el,
    steps: new Set(events.map(function (e) { return e[0]; })),
    row: function (step) {
      if (!rows.has(step)) renderUpTo(events.length);
      return rows.get(step) || null;
    },
  };
}

function goToStep(tl, step) {
  var row = tl.row(step);
  if (!row) return;
  if (highlighted) highlighted.classList.remove('hl');
  highlighted = row;
  row.classList.add('hl');
  row.scrollIntoView({ block: 'center' });
  row.focus({ preventScroll: true });
}

function citationLinks(ti, steps, tl) {
  return steps.map(function (step) {
    var present = tl.steps.has(step);
    var link = h('a', {
      href: '#' + stepId(ti, step),
      class: present ? 'cite' : 'cite missing',
      'data-testid': 'citation',
      'data-step': step,
      title: present ? 'Show step ' + step : 'Step ' + step + ' is not in the trace',
    }, 'step ' + step);
    onClick(link, function (e) {
      e.preventDefault();
      goToStep(tl, step);
    });
    return [' ', link];
  });
}

function findingItem(ti, f, tl) {
  return h('li', { class: 'finding', 'data-testid': 'finding', 'data-type': f.type }, [
    h('span', { class: 'tag' }, f.type),
    ' ',
    expandable(f.message, null, 'finding-message'),
    f.citations ? [' \u2014', citationLinks(ti, f.citations, tl)] : null,
  ]);
}

function findingList(ti, findings, tl) {
  return findings ? h('ul', { class: 'findings' }, findings.map(function (f) { return findingItem(ti, f, tl); })) : null;
}

function scoreItem(ti, s, tl) {
  return h('li', { class: 'score', 'data-testid': 'score', 'data-evaluator': s.evaluator }, [
    h('div', null, [
      h('strong', null, s.evaluator),
      ' (' + s.kind + ') ',
      h('span', { class: 'status s-' + s.status, 'data-testid': 'score-status' }, s.score + ' ' + s.status),
      s.citations ? [' \u2014 cites', citationLinks(ti, s.citations, tl)] : null,
    ]),
    s.error !== undefined ? h('div', { class: 'error' }, 'could not judge: ' + s.error) : null,
    s.thrown !== undefined ? textBlock(s.thrown, 'score-stack') : null,
    s.explanation ? h('div', { class: 'explanation' }, expandable(s.explanation, null, 'explanation')) : null,
    findingList(ti, s.findings, tl),
  ]);
}

function verdictItem(ti, v, tl) {
  return h('li', { class: 'score', 'data-testid': 'verdict', 'data-checker': v.checker }, [
    h('div', null, [h('strong', null, v.checker), ' ', h('span', { class: 'status v-' + v.verdict }, v.verdict)]),
    findingList(ti, v.findings, tl),
  ]);
}

function buildTrial(ti, container) {
  var trial = DATA.trials[ti];
  var tl = timeline(ti, trial);
  var parts = [];
  if (trial.error !== undefined) parts.push(h('h4', null, 'Error'), textBlock(trial.error, 'trial-error'));
  if (trial.thrown !== undefined) parts.push(h('h4', null, 'What the agent threw'), textBlock(trial.thrown, 'trial-stack'));
  parts.push(h('h4', null, 'Final answer'));
  parts.push(trial.answer === null ? h('p', { class: 'muted', 'data-testid': 'no-final-answer' }, 'No final answer.') : textBlock(trial.answer, 'final-answer'));
  if (trial.phases) {
    parts.push(h('h4', null, 'Phases'), h('ul', { class: 'phases', 'data-testid': 'phases' }, trial.phases.map(function (p) {
      return h('li', null, p.name + ' ' + p.text);
    })));
  }
  if (trial.scores.length > 0) {
    parts.push(h('h4', null, 'Evaluator scores'), h('ul', { class: 'scores' }, trial.scores.map(function (s) { return scoreItem(ti, s, tl); })));
  }
  if (trial.verdicts) {
    parts.push(h('h4', null, 'Policy verdicts'), h('ul', { class: 'scores' }, trial.verdicts.map(function (v) { return verdictItem(ti, v, tl); })));
  }
  if (trial.warnings) {
    parts.push(h('h4', null, 'Warnings'), h('ul', { 'data-testid': 'warnings' }, trial.warnings.map(function (w) { return h('li', null, w); })));
  }
  parts.push(h('h4', null, 'Timeline (' + trial.events.length + ' events)'), tl.el);
  container.appendChild(h('div', { class: 'trial-body' }, parts));
}

function trialPanel(ti) {
  var trial = DATA.trials[ti];
  var details = h('details', { class: 'trial ' + (trial.passed ? 'passed' : 'not-passed'), 'data-testid': 'trial', 'data-trial': trial.trial }, h('summary', null, [
    'Trial ' + trial.trial + ' \u2014 ',
    h('span', { class: 'outcome o-' + trial.outcome, 'data-testid': 'trial-outcome' }, trial.outcome),
    ' \u00b7 ' + trial.line,
  ]));
  var built = false;
  function build() {
    if (built) return;
    built = true;
    buildTrial(ti, details);
  }
  details.addEventListener('toggle', function () { if (details.open) build(); });
  return { el: details, open: function () { build(); details.open = true; } };
}

var detailPanel = h('section', { id: 'task', class: 'task-detail', 'data-testid': 'task-detail', hidden: true });

function openTask(index) {
  var task = DATA.tasks[index];
  if (!task) return;
  var panels = task.trials.map(trialPanel);
  var first = task.trials.findIndex(function (ti) { return !DATA.trials[ti].passed; });
  detailPanel.replaceChildren(
    h('div', { class: 'detail-head' }, [
      h('h2', { 'data-testid': 'task-title' }, task.key),
      button('Close', { class: 'close', 'data-testid': 'close-task' }, function () { detailPanel.hidden = true; }),
    ]),
    h('p', { class: 'muted', 'data-testid': 'task-line' }, task.line),
    panels.length > 0 ? h('div', null, panels.map(function (p) { return p.el; })) : h('p', null, 'No trials recorded.')
  );
  detailPanel.setAttribute('data-task', task.key);
  detailPanel.hidden = false;
  if (panels.length > 0) panels[first < 0 ? 0 : first].open();
  detailPanel.scrollIntoView({ block: 'start' });
}


var DATA = null;
var tables = [];

function table(spec) {
  var t = dataTable(spec, openTask);
  tables.push(t);
  return t;
}

function facts(pairs, testid) {
  return h('dl', { class: 'facts', 'data-testid': testid }, pairs.map(function (pair) {
    return h('div', null, [h('dt', null, pair[0]), h('dd', null, pair[1])]);
  }));
}

function headerSection() {
  return h('header', { 'data-testid': 'run' }, [
    h('h1', null, DATA.title),
    facts(DATA.run, 'run-facts'),
    DATA.caveat ? h('p', { class: 'callout warn', 'data-testid': 'caveat' }, DATA.caveat) : null,
  ]);
}

function pooledFigure(hl) {
  return [
    h('p', { class: 'headline' }, [
      hl.scope ? 'Pass rate over ' + hl.scope + ' ' : 'Pass rate ',
      h('strong', { class: 'rate', 'data-testid': 'headline-rate' }, hl.rate),
      ' ',
      h('span', { class: 'ci' }, [hl.level + ' CI ', h('span', { 'data-testid': 'headline-ci' }, hl.ci)]),
    ]),
    h('p', null, [
      'Interval: ',
      h('span', { 'data-testid': 'headline-method' }, hl.method),
      '; n = ',
      h('span', { 'data-testid': 'headline-tasks' }, String(hl.tasks)),
      ' tasks, ',
      h('span', { 'data-testid': 'headline-trials' }, String(hl.trials)),
      ' trials; ' + hl.policy + '.',
    ]),
    h('p', null, hl.other),
  ];
}

function headlineSection() {
  var hl = DATA.headline;
  var parts = [];
  if (hl.groups) {
    parts.push(h('p', null, 'Per benchmark and target (' + hl.policy + '):'));
    parts.push(table(hl.groups).el);
  }
  if (hl.pooled) parts = parts.concat(pooledFigure(hl));
  else parts.push(h('p', { class: 'callout', 'data-testid': 'headline-note' }, hl.note));
  parts.push(h('p', { 'data-testid': 'headline-passed' }, hl.passed + ' of ' + hl.n + ' trials passed.'));
  if (hl.neverPassedCount > 0) {
    parts.push(h('div', { class: 'callout warn', 'data-testid': 'never-passed' }, [
      h('strong', null, '\u26a0 ' + hl.neverPassedCount + (hl.neverPassedCount === 1 ? ' task' : ' tasks') + ' never passed:'),
      taskList(hl.neverPassed, hl.neverPassedCount, 'never-passed-list', 50, openTask),
    ]));
  }
  if (hl.flakyCount !== null) {
    parts.push(h('p', { 'data-testid': 'headline-flaky' }, [
      h('a', { href: '#flaky' }, 'Flaky tasks'),
      ': ' + hl.flakyCount + ' of ' + DATA.tables.tasks.rows.length + ' passed in some trials and failed in others.',
    ]));
  }
  parts.push(h('p', { class: 'muted small' }, 'Settings: ' + hl.settings + '.'));
  return h('section', { id: 'overall', 'data-testid': 'headline' }, [h('h2', null, 'Overall')].concat(parts));
}

function comparisonSection() {
  var c = DATA.comparison;
  if (!c) return null;
  return section('comparison', 'Baseline comparison', [
    h('p', { class: 'headline' }, [
      'Verdict ',
      h('strong', { class: 'verdict v-' + c.verdict, 'data-testid': 'comparison-verdict' }, c.verdict),
      ' \u2014 ' + c.reason,
    ]),
    h('p', null, [
      'Pass rate \u0394 ',
      h('strong', { 'data-testid': 'comparison-delta' }, c.delta),
      ' (',
      h('span', { 'data-testid': 'comparison-delta-ci' }, c.deltaCi),
      '), p = ',
      h('span', { 'data-testid': 'comparison-p' }, c.pValue),
      ' (' + c.test + ')',
    ]),
    facts([['Baseline run', c.baseline]].concat(c.facts), 'comparison-facts'),
    table(c.metrics).el,
    h('h3', null, 'Broken tasks (' + c.broken.length + ')'),
    c.broken.length > 0 ? taskList(c.broken, c.broken.length, 'broken', 100, openTask) : h('p', { class: 'muted' }, 'No task that always passed in the baseline fails in every trial now.'),
    h('h3', null, 'Regressed tasks (' + c.regressed.length + ')'),
    c.regressed.length > 0 ? taskList(c.regressed, c.regressed.length, 'regressed', 100, openTask) : h('p', { class: 'muted' }, 'No paired task got worse.'),
    h('h3', null, 'Improved tasks (' + c.improved.length + ')'),
    c.improved.length > 0 ? taskList(c.improved, c.improved.length, 'improved', 100, openTask) : h('p', { class: 'muted' }, 'No paired task got better.'),
  ]);
}

function flakySection() {
  var flaky = DATA.tables.flaky;
  if (!flaky) return section('flaky', 'Flaky tasks', h('p', { class: 'muted' }, 'Every task ran once: flakiness needs several trials per task.'));
  if (flaky.rows.length === 0) return section('flaky', 'Flaky tasks', h('p', { 'data-testid': 'no-flaky' }, 'None of ' + DATA.tasks.length + ' tasks passed in some trials and failed in others.'));
  return section('flaky', 'Flaky tasks', [
    h('p', null, flaky.rows.length + ' tasks passed in some trials and failed in others, least consistent first. Consistency: (2p \u2212 1)\u00b2.'),
    table(flaky).el,
  ]);
}

function usageSection() {
  return section('usage', 'Cost and tokens', [
    h('div', { class: 'charts' }, DATA.charts.map(barChart)),
    table(DATA.tables.usage).el,
    h('p', { 'data-testid': 'cost-per-solved' }, 'Cost per solved task: ' + DATA.costPerSolved + '.'),
  ]);
}

function optionalTable(id, title, spec) {
  return spec ? section(id, title, table(spec).el) : null;
}

function nav(sections) {
  return h('nav', { class: 'toc' }, sections.filter(Boolean).map(function (s) {
    var title = s.querySelector('h2');
    return h('a', { href: '#' + s.id }, title ? title.textContent : s.id);
  }));
}

function start() {
  var app = document.getElementById('app');
  var tasks = table(DATA.tables.tasks);
  var sections = [
    headlineSection(),
    comparisonSection(),
    section('benchmarks', 'Benchmarks', table(DATA.tables.benchmarks).el),
    optionalTable('categories', 'Categories', DATA.tables.categories),
    section('tasks', 'Tasks', [h('p', { class: 'muted' }, 'Click a header to sort, a task to open its trials and traces.'), tasks.el]),
    detailPanel,
    flakySection(),
    optionalTable('evaluators', 'Evaluators', DATA.tables.evaluators),
    usageSection(),
    section('outcomes', 'Outcomes', table(DATA.tables.outcomes).el),
  ].filter(Boolean);
  app.replaceChildren(headerSection(), nav(sections.filter(function (s) { return s !== detailPanel; })));
  sections.forEach(function (s) { app.appendChild(s); });
  tables.forEach(function (t) { t.start(); });
  tasks.table.setAttribute('data-ready', 'true');
  document.body.setAttribute('data-ready', 'true');
  performance.mark('agentevalops:ready');
}

// The rows blocks in document order, one trial a row, in the order the run wrote them.
function readRows() {
  var trials = [];
  document.querySelectorAll('script.rows').forEach(function (block) {
    var rows = JSON.parse(block.textContent);
    for (var i = 0; i < rows.length; i++) trials.push(rows[i]);
  });
  return trials;
}

// Each task lists its trials by trial number; a trial whose task the summary lacks still gets a task to open.
function linkTrials() {
  var byKey = new Map();
  DATA.tasks.forEach(function (task, i) {
    task.trials = [];
    byKey.set(task.key, i);
  });
  DATA.trials.forEach(function (trial, ti) {
    var index = byKey.get(trial.task);
    if (index === undefined) {
      index = DATA.tasks.push({ key: trial.task, line: '\u2014', trials: [] }) - 1;
      byKey.set(trial.task, index);
    }
    DATA.tasks[index].trials.push(ti);
  });
  DATA.tasks.forEach(function (task) {
    task.trials.sort(function (a, b) { return DATA.trials[a].trial - DATA.trials[b].trial || a - b; });
  });
}

try {
  DATA = JSON.parse(document.getElementById('data').textContent);
  DATA.trials = readRows();
  linkTrials();
  start();
} catch (error) {
  document.getElementById('app').replaceChildren(h('p', { class: 'callout warn' }, 'This report could not be drawn: ' + str(error && error.message)));
  throw error;
}

})();