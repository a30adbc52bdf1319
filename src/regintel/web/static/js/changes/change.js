// One change of the report as a card: its kind, substantive or editorial, where it is, the
// one sentence that says what changed, the facts it changed, the redline, and (on request)
// both versions' words verbatim side by side.
import { h, newId, shownQuote } from '../dom.js';
import { factText, kindBadge, natureBadge, placeText, provisionText } from './labels.js';
import { redlineView } from './redline.js';

/** The element id of change ``n`` (the impact links to it). */
export const changeId = (n) => `change-${n}`;

function quoteView(label, name, quote) {
  return h('figure', { class: 'cr-quote' },
    h('figcaption', {}, h('strong', {}, label), ` · ${name}`),
    quote ? h('blockquote', {}, shownQuote(quote))
      : h('p', { class: 'muted' }, label === 'Before' ? 'Not in this version.' : 'Not in the new version.'));
}

/** Both versions' words, shown by a toggle under the redline. */
function bothVersions(change, names) {
  const id = newId('cr-both');
  const panel = h('div', { class: 'cr-both', id, hidden: true },
    quoteView('Before', names.old, change.old_quote), quoteView('After', names.new, change.new_quote));
  const toggle = h('button', {
    type: 'button', class: 'btn small ghost cr-both-toggle', 'aria-expanded': 'false', 'aria-controls': id,
    onclick: () => {
      const open = panel.hidden;
      panel.hidden = !open;
      toggle.setAttribute('aria-expanded', String(open));
      toggle.textContent = open ? 'Hide both versions' : 'Show both versions';
    },
  }, 'Show both versions');
  return [toggle, panel];
}

/** The card of change ``n`` (its index in the report); names: {old, new} of the versions. */
export function changeCard(change, n, names) {
  const headingId = newId('cr-change');
  const place = placeText(change);
  const facts = change.facts_changed || [];
  return h('article', {
    class: `cr-change${change.substantive ? ' substantive' : ' editorial'}`, id: changeId(n), tabindex: -1,
    'aria-labelledby': headingId, dataset: { kind: change.kind, substantive: String(change.substantive) },
  },
  h('header', { class: 'cr-change-head' },
    h('div', { class: 'cr-badges' }, kindBadge(change.kind), natureBadge(change)),
    h('h3', { id: headingId, class: 'cr-provision' }, provisionText(change)),
    place ? h('p', { class: 'cr-place muted' }, place) : null),
  h('p', { class: 'cr-summary' }, change.summary),
  facts.length ? h('ul', { class: 'cr-facts', 'aria-label': 'Facts changed' }, facts.map((f) => h('li', {}, factText(f)))) : null,
  redlineView(change),
  change.old_quote || change.new_quote ? h('div', { class: 'cr-both-wrap' }, bothVersions(change, names)) : null);
}
