/**
 * The page's sections and its start: read the data block and the rows blocks, give each task its trials, lay out the run, the headline, the comparison, the
 * tables and the charts, then mark the page ready (`data-ready` on the body and the tasks table, and the
 * performance mark `agentevalops:ready`, which the benchmark reads).
 *
 * Plain JavaScript inside String.raw: no backtick and no dollar-brace in it.
 */
export const MAIN_SCRIPT = String.raw`
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
`
