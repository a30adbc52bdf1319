// The detail of the selected row: the obligation verbatim with its items, why the engine reads
// it as it does, the policy's closest clauses, the facts that differ; and the decision form
// (Met / Partly met / Gap / Not applicable, the clause that meets it, a note).
import { append, clear, formatDate, h, newId, shownQuote } from '../dom.js';
import { problemText } from '../screens/common.js';
import { DECISIONS, SCORE_TIP, decisionLabel, scoreText, statusBadge } from './labels.js';
import { rowWork } from './task.js';

const NEEDS_CLAUSE = new Set(['met', 'partly_met']);
const FACT_KINDS = { start: 'Runs from', permission: 'Permitted or not', extent: 'All or a sample' };

const factKind = (kind) => FACT_KINDS[kind] || `${String(kind || 'fact')[0].toUpperCase()}${String(kind || 'fact').slice(1)}`;

function place(c) {
  return [c.clause ? `§ ${c.clause}` : '', c.section && c.section !== c.clause ? c.section.split(' › ').pop() : '',
    c.page ? `page ${c.page}` : ''].filter(Boolean).join(' · ');
}

function obligationView(row) {
  return h('blockquote', { class: 'rv-obligation' }, row.obligation,
    row.items && row.items.length ? h('ul', { class: 'rv-items' }, row.items.map((i) => h('li', {},
      h('span', { class: 'rv-item-label' }, i.label), ' ', i.text))) : null,
    h('cite', {}, [row.regulation_title, row.rule].filter(Boolean).join(' · ')));
}

function factsView(row) {
  const facts = row.differing_facts || [];
  if (!facts.length) return null;
  return [h('h3', {}, 'What differs'), h('table', { class: 'rv-facts' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Fact'), h('th', { scope: 'col' }, 'The rule says'), h('th', { scope: 'col' }, 'The policy says'))),
    h('tbody', {}, facts.map((f) => h('tr', {},
      h('th', { scope: 'row' }, factKind(f.kind)),
      h('td', {}, f.rule), h('td', {}, f.policy)))))];
}

function decidedLine(row) {
  const d = row.decision;
  if (!d) return null;
  const who = [d.decided_by_name ? `by ${d.decided_by_name}` : '', formatDate(d.decided_at)].filter(Boolean).join(' · ');
  return h('p', { class: 'rv-decided' }, row.reopened ? 'Earlier decision: ' : 'Decided: ',
    h('strong', {}, decisionLabel(d.decision)), who ? ` ${who}` : '',
    d.clause ? [h('br'), 'Met by: ', h('q', {}, shownQuote(d.clause))] : null,
    d.note ? [h('br'), 'Note: ', d.note] : null);
}

/**
 * The pane. onSave(row, body) posts a decision and resolves to the saved row; onBack() (narrow
 * screens) returns to the list.
 */
export function createDetail({ onSave, onBack }) {
  const element = h('section', { class: 'review-detail glass', 'aria-label': 'Selected row', tabindex: -1 });
  let form = null;

  function show(row) {
    clear(element);
    if (!row) {
      element.append(h('p', { class: 'muted' }, 'Select a row to review it.'));
      form = null;
      return;
    }
    const decided = row.decision && !row.reopened ? row.decision : null;
    const headingId = newId('rv-heading');
    element.setAttribute('aria-labelledby', headingId);
    const sev = row.severity ? h('span', { class: `badge sev sev-${String(row.severity).toLowerCase()}` }, row.severity) : null;
    append(element, [
      h('button', { type: 'button', class: 'btn ghost small only-narrow rv-back', onclick: onBack }, '← Back to the list'),
      h('header', { class: 'rv-detail-head' },
        h('h2', { id: headingId }, row.rule || 'Unnumbered rule', row.part ? h('span', { class: 'rv-detail-part' }, ` · ${row.part}`) : null),
        h('div', { class: 'rv-badges' }, statusBadge(row), sev,
          h('span', { class: 'muted rv-detail-score', title: SCORE_TIP }, `Score ${scoreText(row.priority)}`))),
      row.reopened ? h('p', { class: 'rv-reopened', role: 'note' }, h('strong', {}, 'Reopened: '), row.reopened) : null,
      obligationView(row),
      row.actor ? h('p', { class: 'muted rv-binds' }, `Binds: ${row.actor}${row.strength ? ` (${row.strength})` : ''}`) : null,
      row.reason ? [h('h3', {}, row.review === 'finding' ? 'Why it is a finding' : 'Why it is proposed so'),
        h('p', { class: 'rv-reason' }, row.reason)] : null,
      factsView(row),
      row.missing_items && row.missing_items.length
        ? h('p', {}, h('strong', {}, 'Items the policy leaves out: '), row.missing_items.join(', ')) : null,
      row.fix ? h('p', { class: 'suggestion' }, h('strong', {}, 'Suggested fix: '), row.fix) : null,
      decisionForm(row, decided),
      decidedLine(row),
      rowWork(row)]);
  }

  function decisionForm(row, decided) {
    const radios = DECISIONS.map(([value, label], i) => {
      const input = h('input', { type: 'radio', name: 'rv-decision', value, checked: decided && decided.decision === value });
      return h('label', { class: `rv-choice dc-${value}` }, input, h('span', {}, label), h('kbd', { 'aria-hidden': 'true' }, String(i + 1)));
    });
    const candidates = (row.candidates || []).slice(0, 3);
    const clauseRadios = candidates.map((c) => h('label', { class: 'rv-candidate' },
      h('input', { type: 'radio', name: 'rv-clause', value: c.quote, checked: Boolean(decided && decided.clause === c.quote) }),
      h('span', { class: 'rv-candidate-body' }, h('q', {}, shownQuote(c.quote)),
        h('span', { class: 'rv-candidate-meta' }, [place(c), `score ${scoreText(c.score)}`].filter(Boolean).join(' · ')))));
    const none = h('label', { class: 'rv-candidate none' },
      h('input', { type: 'radio', name: 'rv-clause', value: '', checked: !(decided && candidates.some((c) => c.quote === decided.clause)) }),
      h('span', {}, 'None of these'));
    const note = h('textarea', { name: 'note', rows: 2, maxlength: 2000, placeholder: 'Why — for the next reviewer and the report' });
    note.value = decided ? decided.note || '' : '';
    const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
    const saved = h('span', { class: 'rv-saved', role: 'status' });
    const save = h('button', { type: 'submit', class: 'btn primary' }, 'Save decision');
    const clauses = h('fieldset', { class: 'rv-candidates' },
      h('legend', {}, 'Closest policy clauses', h('span', { class: 'muted' }, ' — choose the one that meets it (for Met or Partly met)')),
      candidates.length ? [clauseRadios, none] : h('p', { class: 'muted' }, 'The engine found no policy clause close to this rule.'));
    const noteId = newId('rv-note');
    note.id = noteId;
    form = h('form', { class: 'rv-form', 'aria-label': 'Decision' },
      h('fieldset', { class: 'rv-choices' }, h('legend', {}, 'Decision'), radios),
      clauses,
      h('div', { class: 'field' }, h('label', { for: noteId }, 'Note (optional)'), note),
      error, h('div', { class: 'rv-actions' }, save, saved));
    const chosen = () => (form.querySelector('input[name="rv-decision"]:checked') || {}).value || '';
    const sync = () => {
      const needs = NEEDS_CLAUSE.has(chosen());
      for (const input of clauses.querySelectorAll('input')) input.disabled = !needs;
    };
    form.addEventListener('change', sync);
    sync();
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      error.hidden = true;
      saved.textContent = '';
      const decision = chosen();
      if (!decision) {
        error.textContent = 'Choose a decision first (keys 1–4).';
        error.hidden = false;
        return;
      }
      const body = { obligation_key: row.obligation_key, decision, note: note.value.trim() };
      const clause = (form.querySelector('input[name="rv-clause"]:checked') || {}).value;
      if (NEEDS_CLAUSE.has(decision) && clause) body.clause = clause;
      save.disabled = true;
      try {
        await onSave(row, body);
      } catch (err) {
        error.textContent = problemText(err);
        error.hidden = false;
      } finally {
        save.disabled = false;
      }
    });
    return form;
  }

  show(null);
  return {
    element,
    show,
    /** Picks decision n (1–4) of the shown row. */
    pick(n) {
      const input = form && form.querySelectorAll('input[name="rv-decision"]')[n - 1];
      if (!input) return;
      input.checked = true;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    },
    save() {
      if (form) form.requestSubmit();
    },
    /** After a save: the row shown again, saying so. */
    saved(row) {
      show(row);
      const status = element.querySelector('.rv-saved');
      if (status) status.textContent = `✓ Saved: ${decisionLabel(row.decision && row.decision.decision)}`;
    },
  };
}
