/**
 * The page's sortable, filterable table. It draws only the rows in view (fixed row height, a spacer above and
 * below), so a table of ten thousand rows costs what one of forty does; sort and filter work on index arrays.
 *
 * Plain JavaScript inside String.raw: no backtick and no dollar-brace in it.
 */
export const TABLE_SCRIPT = String.raw`
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
`
