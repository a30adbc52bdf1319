// What the new version touches (GET …/impact): the obligations it alters, removes or adds
// (renumbered and editorial ones folded away: decisions on them carry over), the review
// decisions that rested on an altered or removed obligation and reopen, and the project items
// citing rewritten text; the impact report as a file; "Turn into task" on each impact.
import { get } from '../api.js';
import { clear, formatDate, h, shownQuote, titled } from '../dom.js';
import { decisionLabel } from '../review/labels.js';
import { reviewPage } from '../review/paths.js';
import { problemText } from '../screens/common.js';
import { plural } from './labels.js';
import { impactApi, impactExport } from './paths.js';
import { impactWork } from './task.js';

const GROUPS = [
  ['altered', 'Altered', 'Decisions on these reopen.'],
  ['removed', 'Removed', 'Decisions on these reopen.'],
  ['added', 'Added', 'New duties: not yet in any audit.'],
];
const FOLDED = [['renumbered', 'Renumbered'], ['editorial', 'Editorial only']];
const KIND_LABELS = Object.fromEntries([...GROUPS, ...FOLDED].map(([k, label]) => [k, label]));
const EXPORTS = [['xlsx', 'XLSX', 'Excel'], ['docx', 'DOCX', 'Word']];

function ruleText(impact) {
  const old = impact.old && impact.old.rule;
  const now = impact.new && impact.new.rule;
  if (old && now && old !== now) return `${old} → ${now}`;
  return now || old || impact.provision;
}

function sideView(label, name, side) {
  return h('figure', { class: 'cr-quote' }, h('figcaption', {}, h('strong', {}, label), ` · ${name}`),
    h('blockquote', {}, side.text));
}

/** The impact pane; docs: {old, new} of the two versions; onShowChange(n) opens change n. */
export function createImpact({ documentId, from, docs, onShowChange }) {
  const element = h('div', { class: 'cr-impact' });
  let started = false;

  function obligationCard(impact) {
    const texts = [impact.old ? sideView('Before', docs.old.name, impact.old) : null,
      impact.new ? sideView('After', docs.new.name, impact.new) : null].filter(Boolean);
    const see = typeof impact.change === 'number' ? h('button', {
      type: 'button', class: 'link-btn', onclick: () => onShowChange(impact.change),
    }, 'See the change') : null;
    return h('li', { class: `cr-ob cr-ob-${impact.kind}`, dataset: { kind: impact.kind } },
      h('div', { class: 'cr-ob-head' },
        h('span', { class: `badge ob ob-${impact.kind}` }, KIND_LABELS[impact.kind] || impact.kind),
        h('strong', { class: 'cr-ob-rule' }, ruleText(impact)),
        impact.provision && impact.provision !== ruleText(impact) ? h('span', { class: 'muted cr-ob-provision' }, impact.provision) : null),
      h('p', { class: 'cr-summary' }, impact.summary),
      h('div', { class: `cr-sides${texts.length > 1 ? ' two' : ''}` }, texts),
      h('div', { class: 'cr-ob-actions' }, see, impactWork(impact, docs)));
  }

  function obligationsView(obligations) {
    const of = (kind) => obligations.filter((o) => o.kind === kind);
    const groups = GROUPS.map(([kind, label, note]) => {
      const found = of(kind);
      if (!found.length) return null;
      return h('section', { class: 'cr-ob-group', 'aria-label': `${label} obligations` },
        h('h3', {}, `${label} (${found.length})`, h('span', { class: 'muted cr-ob-note' }, ` — ${note}`)),
        h('ul', { class: 'cr-obs' }, found.map(obligationCard)));
    });
    const folded = FOLDED.map(([kind, label]) => {
      const found = of(kind);
      if (!found.length) return null;
      return h('details', { class: 'cr-ob-group review-fold' },
        h('summary', {}, `${label} (${found.length}) — decisions on these carry over`),
        h('ul', { class: 'cr-obs' }, found.map(obligationCard)));
    });
    return h('section', { class: 'glass card cr-impact-part' }, h('h2', {}, 'Obligations'),
      obligations.length ? [groups, folded]
        : h('p', { class: 'muted' }, 'No obligation of the register changed.'));
  }

  function decisionCard(d, policy) {
    const who = [d.decided_by ? `by ${d.decided_by}` : '', formatDate(d.decided_at)].filter(Boolean).join(' · ');
    const review = d.conversation_id && d.message_id ? h('a', {
      class: 'btn small ghost', href: reviewPage(d.conversation_id, d.message_id), 'data-nav': true,
    }, 'Open the review') : null;
    return h('li', { class: 'cr-decision' },
      h('div', { class: 'cr-ob-head' },
        h('strong', {}, policy), h('span', { class: 'muted' }, d.rule || ruleText(d.impact)),
        h('span', { class: `badge dc dc-${d.decision}` }, decisionLabel(d.decision)),
        h('span', { class: 'badge dc dc-reopened' }, 'Reopened')),
      who ? h('p', { class: 'muted cr-decided' }, `Decided ${who}`) : null,
      h('p', { class: 'cr-summary' }, h('strong', {}, `${KIND_LABELS[d.impact.kind] || d.impact.kind}: `), d.impact.summary),
      review);
  }

  function decisionsView(decisions, titles) {
    return h('section', { class: 'glass card cr-impact-part', 'aria-label': 'Decisions reopened' },
      h('h2', {}, `Decisions reopened (${decisions.length})`),
      decisions.length ? [h('p', { class: 'muted' }, 'The review decisions that rested on an obligation this version altered or removed: they no longer stand.'),
        h('ul', { class: 'cr-decisions' }, decisions.map((d) => decisionCard(d, titles.get(d.policy_document_id) || d.policy)))]
        : h('p', { class: 'muted' }, 'No review decision rests on an obligation this version altered or removed.'));
  }

  function itemsView(items) {
    return h('section', { class: 'glass card cr-impact-part', 'aria-label': 'Project items' },
      h('h2', {}, `Project items (${items.length})`),
      items.length ? h('ul', { class: 'cr-items' }, items.map((item) => h('li', { class: 'cr-item' },
        h('div', { class: 'cr-ob-head' },
          h('a', { href: `/projects?project=${encodeURIComponent(item.project_id)}`, 'data-nav': true }, item.project),
          h('span', { class: 'chip' }, item.kind), h('strong', {}, item.title),
          item.state ? h('span', { class: 'muted' }, item.state) : null),
        h('blockquote', { class: 'cr-cited' }, shownQuote(item.quote)),
        h('p', { class: 'cr-summary' }, item.summary))))
        : h('p', { class: 'muted' }, 'No project item cites text this version rewrote.'));
  }

  function headView(report) {
    const counts = GROUPS.map(([kind, label]) => [report.obligations.filter((o) => o.kind === kind).length, label.toLowerCase()])
      .filter(([n]) => n).map(([n, label]) => `${n} ${label}`);
    return h('div', { class: 'cr-impact-head' },
      h('p', { class: 'cr-impact-said' },
        h('strong', {}, counts.length ? `Obligations: ${counts.join(', ')}` : 'No obligation altered, removed or added'),
        ` · ${plural(report.decisions.length, 'decision')} reopened · ${plural(report.items.length, 'project item')}`),
      h('div', { class: 'audit-export', role: 'group', 'aria-label': 'Export the impact report' },
        EXPORTS.map(([format, label, app]) => h('a', {
          class: 'btn small ghost', href: impactExport(documentId, from, format), download: true,
          title: `The impact report as a ${app} file`,
        }, `Export impact (${label})`))));
  }

  /** The policies' titles as the library shows them: a decision files its policy under a
   * folded key ("kite brokers policy"). Without the library, the keys stand. */
  async function policyTitles(decisions) {
    const titles = new Map();
    if (!decisions.some((d) => d.policy_document_id)) return titles;
    try {
      for (const d of (await get('/api/documents')).data) titles.set(d.id, titled(d.title, d.version));
    } catch { /* the keys stand */ }
    return titles;
  }

  async function load() {
    clear(element).append(h('p', { class: 'loading', role: 'status' }, 'Reading what the new version touches…'));
    let report;
    try {
      report = await get(impactApi(documentId, from));
    } catch (error) {
      clear(element).append(h('section', { class: 'glass card review-state' },
        h('h2', {}, 'The impact could not be read'), h('p', { class: 'form-error', role: 'alert' }, problemText(error)),
        h('button', { type: 'button', class: 'btn primary', onclick: load }, 'Try again')));
      return;
    }
    const titles = await policyTitles(report.decisions || []);
    clear(element).append(headView(report), obligationsView(report.obligations || []),
      decisionsView(report.decisions || [], titles), itemsView(report.items || []));
  }

  return {
    element,
    /** Read the impact the first time it is shown. */
    show() {
      if (started) return;
      started = true;
      load();
    },
  };
}
