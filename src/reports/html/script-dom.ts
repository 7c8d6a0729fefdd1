/**
 * The page's DOM helpers. Every node is made with createElement and every piece of data goes in as a text node or
 * an attribute value, so no string from a run is ever parsed as markup.
 *
 * Written as plain JavaScript inside String.raw: no backtick and no dollar-brace in it (page-script.ts checks).
 */
export const DOM_SCRIPT = String.raw`
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
`
