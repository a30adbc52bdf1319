// The table of contents of the changes: each part and section with changes, indented by its
// depth, with how many changes are under it. Choosing one narrows the list to it.
import { h } from '../dom.js';
import { plural } from './labels.js';

export const tocKey = (entry) => `${entry.level}:${entry.label}`;

/** Whether a change is under a table-of-contents entry (null: the whole document). */
export function underEntry(change, entry) {
  if (!entry) return true;
  if (entry.level === 'division') {
    // A change to a division's own text is filed under the division itself.
    return (change.divisions || []).includes(entry.label)
      || (change.level === 'division' && change.section === entry.label);
  }
  return change.level !== 'division' && change.section === entry.label;
}

function countTitle(entry) {
  return [plural(entry.substantive, 'substantive change'), plural(entry.editorial, 'editorial change')].join(', ');
}

/** The contents; onPick(entry or null) when one is chosen. */
export function createToc({ toc, total, onPick }) {
  const buttons = new Map();
  const item = (key, entry, label, heading, count, title) => {
    const button = h('button', {
      type: 'button', class: `cr-toc-item${entry ? ` level-${entry.level}` : ' all'}`, 'aria-pressed': 'false',
      title, onclick: () => onPick(entry),
    },
    h('span', { class: 'cr-toc-label' }, h('strong', {}, label), heading ? ` ${heading}` : ''),
    h('span', { class: `cr-toc-count${entry && entry.substantive ? ' has-substantive' : ''}` }, String(count)));
    buttons.set(key, button);
    const li = h('li', {}, button);
    if (entry) li.style.setProperty('--depth', String(entry.depth + 1));
    return li;
  };
  const list = h('ul', { class: 'cr-toc-list' },
    item('', null, 'All changes', '', total, null),
    toc.map((e) => item(tocKey(e), e, e.label, e.heading, e.changes, countTitle(e))));
  // Folded away on a phone, where it would stand above the changes.
  const element = h('details', { class: 'cr-toc', open: true },
    h('summary', {}, h('h2', {}, 'Contents')),
    h('nav', { 'aria-label': 'Table of contents' },
      toc.length ? list : h('p', { class: 'muted' }, 'No part or section changed.')));
  return {
    element,
    /** Marks the chosen entry (null: all changes). */
    mark(entry) {
      const key = entry ? tocKey(entry) : '';
      for (const [k, button] of buttons) button.setAttribute('aria-pressed', String(k === key));
    },
  };
}
