// The list of changes with its filters: substantive or editorial, the kind, and the part or
// section chosen in the table of contents; it says how many it shows.
import { h, newId } from '../dom.js';
import { changeCard } from './change.js';
import { KINDS } from './labels.js';
import { underEntry } from './toc.js';

const NATURES = [['', 'All'], ['substantive', 'Substantive'], ['editorial', 'Editorial']];

function matches(change, f) {
  if (f.nature === 'substantive' && !change.substantive) return false;
  if (f.nature === 'editorial' && change.substantive) return false;
  if (f.kind && change.kind !== f.kind) return false;
  return underEntry(change, f.entry);
}

/**
 * The toolbar and the list. onScope(null) when the chosen part is cleared from the toolbar.
 */
export function createList({ changes, names, onScope }) {
  const filters = { nature: '', kind: '', entry: null };
  const group = newId('cr-nature');
  const natures = h('fieldset', { class: 'cr-nature' }, h('legend', { class: 'sr-only' }, 'Show'),
    NATURES.map(([value, label]) => {
      const n = changes.filter((c) => matches(c, { nature: value, kind: '', entry: null })).length;
      const input = h('input', { type: 'radio', name: group, value, checked: value === '' });
      input.addEventListener('change', () => { filters.nature = value; apply(); });
      return h('label', { class: 'cr-seg' }, input, h('span', {}, `${label} (${n})`));
    }));
  const kinds = KINDS.map(([value, label]) => [value, label, changes.filter((c) => c.kind === value).length])
    .filter(([, , n]) => n > 0);
  const kind = h('select', {}, h('option', { value: '' }, 'All kinds'),
    kinds.map(([value, label, n]) => h('option', { value }, `${label} (${n})`)));
  kind.addEventListener('change', () => { filters.kind = kind.value; apply(); });
  const scope = h('span', { class: 'cr-scope', hidden: true });
  const shown = h('span', { class: 'review-shown cr-shown', role: 'status' });
  const toolbar = h('div', { class: 'audit-toolbar cr-toolbar', role: 'toolbar', 'aria-label': 'Filter the changes' },
    natures, h('label', { class: 'audit-filter' }, h('span', {}, 'Kind'), kind), scope, shown);

  const cards = changes.map((c, n) => changeCard(c, n, names));
  const empty = h('p', { class: 'review-empty muted', hidden: true }, 'No change matches these filters. ',
    h('button', { type: 'button', class: 'link-btn', onclick: () => reset() }, 'Show all changes'));
  const list = h('div', { class: 'cr-list' }, cards, empty);

  function apply() {
    let n = 0;
    changes.forEach((c, i) => {
      const visible = matches(c, filters);
      cards[i].hidden = !visible;
      if (visible) n += 1;
    });
    shown.textContent = n === changes.length ? `${n} change${n === 1 ? '' : 's'}` : `Showing ${n} of ${changes.length}`;
    empty.hidden = n > 0;
  }

  function reset() {
    filters.nature = '';
    filters.kind = '';
    natures.querySelector('input[value=""]').checked = true;
    kind.value = '';
    onScope(null);
  }

  apply();
  return {
    toolbar,
    element: list,
    /** Narrows the list to a part or section of the table of contents (null: all). */
    scope(entry) {
      filters.entry = entry;
      scope.replaceChildren();
      scope.hidden = !entry;
      if (entry) {
        scope.append(h('span', {}, 'In ', h('strong', {}, entry.label)),
          h('button', { type: 'button', class: 'icon-btn cr-scope-clear', 'aria-label': `Show changes in every part, not only ${entry.label}`, onclick: () => onScope(null) }, '×'));
      }
      apply();
    },
    /** Every change shown again, and change ``n`` brought into view and focused. */
    reveal(n) {
      reset();
      const card = cards[n];
      if (!card) return;
      card.scrollIntoView({ block: 'start' });
      card.focus({ preventScroll: true });
    },
  };
}
