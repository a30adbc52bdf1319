// The review of an audit (issue 47) at /review/<conversation>/<message>: the rows of its
// coverage matrix as a queue (GET …/review), a detail pane for the selected row and the
// officer's decision on it (POST …/review), with progress, filters and keys (j/k, 1–4, Enter).
// "/review/<conversation>/latest" opens the conversation's latest audit. Navigation is by
// data-nav links only: this module does not import the router (main.js imports it).
import { ApiError, get, post } from '../api.js';
import { clear, h } from '../dom.js';
import { problemText } from '../screens/common.js';
import { pageFrame } from '../screens/page.js';
import { createDetail } from './detail.js';
import { progressText } from './labels.js';
import { reviewApi, reviewPage } from './paths.js';
import { createTable } from './table.js';

const EXPORTS = [['xlsx', 'Excel'], ['docx', 'Word'], ['csv', 'CSV']];
// Where keys are typed, not commands (radio buttons excepted: 1–4 and Enter still work there).
const TYPING = 'textarea, select, [contenteditable], input:not([type="radio"]):not([type="checkbox"])';
const NATIVE_ENTER = 'a, button, summary';
const NARROW = '(max-width: 900px)';
const enc = encodeURIComponent;

function listed(titles) {
  if (titles.length < 2) return titles.join('');
  return `${titles.slice(0, -1).join(', ')} and ${titles[titles.length - 1]}`;
}

function fold(summary, items) {
  return items.length ? h('details', { class: 'review-fold' }, h('summary', {}, summary), h('ul', {}, items)) : null;
}

/** What the audit left out: parties the policy does not govern, parts it did not check. */
function scopeView(data) {
  const excluded = data.excluded || [];
  const left = excluded.reduce((n, e) => n + (e.obligations || 0), 0);
  const unchecked = (data.scope || []).filter((s) => s && s.checked === false);
  return h('div', { class: 'review-folds' },
    fold(`${left} obligation${left === 1 ? '' : 's'} left out: they bind other parties`, excluded.map((e) => h('li', {},
      h('strong', {}, e.actor), ` — ${e.obligations} obligation${e.obligations === 1 ? '' : 's'}. ${e.reason}`,
      e.rules && e.rules.length ? h('span', { class: 'muted' }, ` (e.g. ${e.rules.join(', ')})`) : null))),
    fold(`${unchecked.length} part${unchecked.length === 1 ? '' : 's'} of the regulation not checked`, unchecked.map((s) => h('li', {},
      h('strong', {}, s.section), s.reason ? ` — ${s.reason}` : ''))));
}

export function reviewScreen(me, conversationId, messageId) {
  const cid = conversationId;
  const { element, main } = pageFrame(me, null);
  main.classList.add('review-main');
  const chatHref = `/dashboard?chat=${enc(cid)}`;
  const back = () => h('a', { class: 'back-link', href: chatHref, 'data-nav': true }, '← Back to the chat');
  let onKey = null;
  let gone = false;

  function state(title, ...body) {
    clear(main).append(back(), h('section', { class: 'glass card review-state' }, h('h1', {}, title), ...body));
  }

  async function load() {
    clear(main).append(back(), h('p', { class: 'loading', role: 'status' }, 'Loading the review…'));
    let data;
    try {
      data = await get(reviewApi(cid, messageId));
    } catch (error) {
      if (gone) return;
      if (error instanceof ApiError && error.status === 404) {
        // The API's hint speaks of the chat; here what helps is what a review needs.
        state('No review for this audit',
          h('p', {}, 'This conversation is not yours, or it holds no audit with rows to review.'),
          h('p', { class: 'muted' }, 'A review lists the rows of an audit’s coverage matrix: run an audit of a '
            + 'policy against its regulations in the chat, then open its review.'));
      } else {
        state('The review could not be loaded', h('p', { class: 'form-error', role: 'alert' }, problemText(error)),
          h('button', { type: 'button', class: 'btn primary', onclick: load }, 'Try again'));
      }
      return;
    }
    if (!gone) build(data);
  }

  function build(data) {
    const mid = data.message_id || messageId;
    if (messageId === 'latest' && data.message_id) {
      window.history.replaceState({}, '', reviewPage(cid, data.message_id));
    }
    const regulations = (data.regulations || []).map((r) => r.title).filter(Boolean);
    document.title = `Review: ${data.policy_title || 'audit'} · Regulatory Intelligence Copilot`;
    const bar = h('progress', { 'aria-label': 'Rows reviewed' });
    const said = h('span', { class: 'review-progress-text', role: 'status' });
    const showProgress = (p) => {
      bar.max = Math.max(1, p.total);
      bar.value = p.decided;
      said.textContent = progressText(p);
    };
    showProgress(data.progress);
    const exportBase = `/api/conversations/${enc(cid)}/audit/export?format=`;
    const head = h('header', { class: 'review-head glass' },
      h('div', { class: 'review-title' },
        h('h1', {}, h('span', { class: 'muted' }, 'Review: '), data.policy_title || 'Untitled policy'),
        regulations.length ? h('p', { class: 'review-against' }, 'against ', h('strong', {}, listed(regulations))) : null),
      h('div', { class: 'audit-export', role: 'group', 'aria-label': 'Export the review' },
        h('span', { class: 'muted' }, 'Export:'),
        EXPORTS.map(([format, label]) => h('a', {
          class: 'btn small ghost', href: exportBase + format, download: true,
          title: `The audit report with the decisions (${label})`,
        }, label))),
      h('div', { class: 'review-progress' }, bar, said),
      data.proposer ? proposeControl(mid, data.proposer) : null);
    const rows = (data.rows || []).slice();
    if (!rows.length) {
      clear(main).append(back(), head, h('section', { class: 'glass card review-state' },
        h('h2', {}, 'Nothing to review'),
        h('p', {}, 'The audit mapped no obligation of the regulations onto the policy.'),
        scopeView(data)));
      return;
    }

    let selected = null;
    const byKey = (key) => rows.find((r) => r.obligation_key === key);
    const detail = createDetail({
      onSave: async (row, body) => {
        const saved = await post(reviewApi(cid, mid), body);
        table.replace(saved.row);
        showProgress(saved.progress);
        detail.saved(saved.row);
        // Back on the row, for j/k to go on; on a phone the pane (under the list) keeps it.
        if (window.matchMedia(NARROW).matches) detail.element.focus({ preventScroll: true });
        else table.mark(saved.row.obligation_key, { focus: true });
      },
      onBack: () => table.mark(selected, { focus: true }),
    });
    const table = createTable({
      rows, multipleRegulations: regulations.length > 1,
      onSelect: (key, { focus }) => {
        select(key, { focus });
        if (window.matchMedia(NARROW).matches) detail.element.scrollIntoView({ block: 'start' });
      },
      onFilter: () => {
        const shown = table.shownKeys();
        if (!shown.includes(selected)) select(shown[0] || null);
      },
    });

    /** Selects a row; the pane is redrawn only for another row (a click on the selected row
     * keeps the decision being made). */
    function select(key, { focus = false } = {}) {
      const same = key === selected;
      selected = key;
      table.mark(key, { focus });
      if (!same) detail.show(key ? byKey(key) : null);
    }

    function move(delta) {
      const shown = table.shownKeys();
      if (!shown.length) return;
      const at = shown.indexOf(selected);
      const next = at < 0 ? 0 : Math.min(shown.length - 1, Math.max(0, at + delta));
      select(shown[next], { focus: true });
    }

    onKey = (event) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      const target = event.target instanceof Element ? event.target : null;
      if (target && target.closest(TYPING)) return;
      const onRadio = target instanceof HTMLInputElement && target.type === 'radio';
      const key = event.key;
      if (key === 'j' || (key === 'ArrowDown' && !onRadio)) move(1);
      else if (key === 'k' || (key === 'ArrowUp' && !onRadio)) move(-1);
      else if (['1', '2', '3', '4'].includes(key)) detail.pick(Number(key));
      else if (key === 'Enter' && !(target && target.closest(NATIVE_ENTER))) detail.save();
      else return;
      event.preventDefault();
    };
    document.addEventListener('keydown', onKey);

    clear(main).append(back(), head, scopeView(data),
      h('div', { class: 'review-bar' }, table.toolbar,
        h('p', { class: 'review-keys muted' }, h('kbd', {}, 'j'), ' / ', h('kbd', {}, 'k'), ' move · ',
          h('kbd', {}, '1'), '–', h('kbd', {}, '4'), ' decide · ', h('kbd', {}, 'Enter'), ' saves')),
      h('div', { class: 'review-layout' }, table.element, detail.element));
    select(rows[0].obligation_key);
  }

  /** With a model engine, the model proposes a status for the next rows of the queue: its
   * proposals come back labelled as the model's; the officer still decides each row. */
  function proposeControl(mid, model) {
    const said = h('span', { class: 'muted review-propose-said', role: 'status' });
    const button = h('button', {
      type: 'button', class: 'btn small ghost',
      title: `${model} reads the next 10 undecided rows with their candidate clauses and proposes a status for each`,
      onclick: async () => {
        button.disabled = true;
        said.textContent = `${model} is reading the next 10 rows…`;
        try {
          const next = await post(`${reviewApi(cid, mid)}/proposals?limit=10`, {});
          if (!gone) build(next);
        } catch (error) {
          said.textContent = problemText(error);
          button.disabled = false;
        }
      },
    }, 'Ask the model to propose (next 10 rows)');
    return h('div', { class: 'review-propose' }, button, said);
  }

  load();
  return {
    element,
    title: 'Review',
    cleanup: () => {
      gone = true;
      if (onKey) document.removeEventListener('keydown', onKey);
    },
  };
}
