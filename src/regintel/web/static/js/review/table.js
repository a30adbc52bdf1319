// The review queue as a table (a list of cards on a phone), with its filters: the engine's
// status, its proposal, the regulation's part, and whether the officer has decided.
import { clear, h } from '../dom.js';
import { PROPOSED, SCORE_TIP, STATUSES, decisionBadge, isDecided, scoreText, statusBadge } from './labels.js';

const DECIDED = [['undecided', 'Undecided'], ['decided', 'Decided'], ['reopened', 'Reopened']];

function matches(row, f) {
  if (f.status && row.review !== f.status) return false;
  if (f.proposed && row.proposed !== f.proposed) return false;
  if (f.part && row.part !== f.part) return false;
  if (f.decided === 'decided') return isDecided(row);
  if (f.decided === 'undecided') return !isDecided(row);
  if (f.decided === 'reopened') return Boolean(row.reopened);
  return true;
}

function filterSelect(label, all, options, onChange) {
  const select = h('select', {}, h('option', { value: '' }, all),
    options.map(([value, text]) => h('option', { value }, text)));
  select.addEventListener('change', () => onChange(select.value));
  return { select, element: h('label', { class: 'audit-filter' }, h('span', {}, label), select) };
}

/** Options with how many rows each would show ("Finding (2)"), those with none left out. */
function counted(rows, key, options) {
  return options.map(([value, text]) => [value, text, rows.filter((r) => key(r, value)).length])
    .filter(([, , n]) => n > 0).map(([value, text, n]) => [value, `${text} (${n})`]);
}

/**
 * The table and its toolbar. onSelect(key, {focus}) is called when a row is clicked;
 * onFilter() after the filters change (the screen keeps the selection among shown rows).
 */
export function createTable({ rows, multipleRegulations, onSelect, onFilter }) {
  const filters = { status: '', proposed: '', part: '', decided: '' };
  const set = (name) => (value) => { filters[name] = value; apply(); onFilter(); };
  const parts = [...new Set(rows.map((r) => r.part).filter(Boolean))].map((p) => [p, p]);
  // Without sections (a PDF read as plain text) no row has a part: no column for it.
  const showPart = parts.length > 0;
  const status = filterSelect('Status', 'All statuses', counted(rows, (r, v) => r.review === v, STATUSES), set('status'));
  const proposed = filterSelect('Proposed', 'Any proposal', counted(rows, (r, v) => r.proposed === v, PROPOSED), set('proposed'));
  const part = parts.length > 1 ? filterSelect('Part', 'All parts', parts, set('part')) : null;
  const decided = filterSelect('Decision', 'Decided or not', DECIDED, set('decided'));
  const shown = h('span', { class: 'review-shown', role: 'status' });
  const toolbar = h('div', { class: 'audit-toolbar review-toolbar', role: 'toolbar', 'aria-label': 'Filter the rows' },
    status.element, proposed.element, part ? part.element : null, decided.element, shown);

  const body = h('tbody');
  const trs = new Map();
  const empty = h('p', { class: 'review-empty muted', hidden: true }, 'No row matches these filters. ',
    h('button', { type: 'button', class: 'link-btn', onclick: () => reset() }, 'Show all rows'));
  const table = h('table', { class: 'review-table', 'aria-label': 'Rows to review' },
    h('thead', {}, h('tr', {}, ['Rule', showPart ? 'Part' : null, 'Status', 'Score', 'Decision']
      .filter(Boolean).map((c) => h('th', { scope: 'col', title: c === 'Score' ? SCORE_TIP : null }, c)))),
    body);

  function rowElement(row) {
    const where = multipleRegulations ? h('span', { class: 'rv-reg' }, row.regulation_title) : null;
    const tr = h('tr', { tabindex: -1, dataset: { key: row.obligation_key, review: row.review } },
      h('th', { scope: 'row', class: 'rv-rule', 'data-label': 'Rule' },
        h('span', { class: 'rv-rule-id' }, row.rule || 'Unnumbered rule'), where,
        h('span', { class: 'rv-text' }, row.obligation)),
      // The part's last heading ("Article 8 Conditions applicable…"); its whole path on hover.
      showPart ? h('td', { class: 'rv-part', 'data-label': 'Part', title: row.part || '' },
        (row.part || '—').split(' › ').pop()) : null,
      h('td', { class: 'rv-status', 'data-label': 'Status' }, statusBadge(row)),
      h('td', { class: 'rv-score', 'data-label': 'Score' }, scoreText(row.priority)),
      h('td', { class: 'rv-decision', 'data-label': 'Decision' }, decisionBadge(row)));
    tr.addEventListener('click', (event) => {
      if (event.target instanceof Element && event.target.closest('a, button')) return;
      onSelect(row.obligation_key, { focus: true });
    });
    return tr;
  }

  function fill() {
    clear(body);
    trs.clear();
    for (const row of rows) {
      const tr = rowElement(row);
      trs.set(row.obligation_key, tr);
      body.append(tr);
    }
  }

  function apply() {
    let n = 0;
    for (const row of rows) {
      const visible = matches(row, filters);
      trs.get(row.obligation_key).hidden = !visible;
      if (visible) n += 1;
    }
    shown.textContent = n === rows.length ? `${n} row${n === 1 ? '' : 's'}` : `Showing ${n} of ${rows.length}`;
    empty.hidden = n > 0;
    table.hidden = n === 0;
  }

  function reset() {
    for (const [name, control] of [['status', status], ['proposed', proposed], ['part', part], ['decided', decided]]) {
      filters[name] = '';
      if (control) control.select.value = '';
    }
    apply();
    onFilter();
  }

  fill();
  apply();
  return {
    toolbar,
    element: h('div', { class: 'review-table-wrap' }, table, empty),
    /** The keys of the rows the filters show, in queue order. */
    shownKeys: () => rows.filter((r) => matches(r, filters)).map((r) => r.obligation_key),
    /** A saved row: its cells redrawn in place (it stays shown until the filters change). */
    replace(row) {
      const i = rows.findIndex((r) => r.obligation_key === row.obligation_key);
      if (i < 0) return;
      rows[i] = row;
      const old = trs.get(row.obligation_key);
      const tr = rowElement(row);
      tr.hidden = old.hidden;
      tr.className = old.className;
      for (const name of ['tabindex', 'aria-current']) {
        if (old.hasAttribute(name)) tr.setAttribute(name, old.getAttribute(name));
      }
      old.replaceWith(tr);
      trs.set(row.obligation_key, tr);
    },
    /** Marks the selected row (the one Tab reaches) and, with focus, moves focus to it. */
    mark(key, { focus = false } = {}) {
      for (const [k, tr] of trs) {
        const on = k === key;
        tr.classList.toggle('selected', on);
        tr.tabIndex = on ? 0 : -1;
        if (on) tr.setAttribute('aria-current', 'true');
        else tr.removeAttribute('aria-current');
      }
      const tr = trs.get(key);
      if (tr && focus) {
        tr.focus({ preventScroll: true });
        tr.scrollIntoView({ block: 'nearest' });
      }
    },
  };
}
