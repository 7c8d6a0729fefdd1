/**
 * The page's task drill-down: a task's trials, each built only when opened, with its answer, its evaluator scores
 * and findings, and its trace as a timeline. A citation links to its step: clicking it scrolls there and highlights
 * the step; the step in turn names who cited it.
 *
 * Plain JavaScript inside String.raw: no backtick and no dollar-brace in it.
 */
export const TIMELINE_SCRIPT = String.raw`
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
`
