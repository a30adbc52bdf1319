// What changed in a version of a document (issue 48) at /changes/<document>[?from=<earlier>]:
// the change report against the version before it (or the one named), navigable by its table
// of contents and filtered by substantive or editorial and by kind, each change with its
// redline; and, on its own tab, what the change touches (obligations, reopened decisions,
// project items). Links navigate with data-nav; the version picker through navigation.js.
import { ApiError, get } from '../api.js';
import { clear, h, titled } from '../dom.js';
import { navigate } from '../navigation.js';
import { problemText } from '../screens/common.js';
import { pageFrame } from '../screens/page.js';
import { createImpact } from './impact.js';
import { plural } from './labels.js';
import { createList } from './list.js';
import { changesApi, changesPage, versionsApi } from './paths.js';
import { createToc } from './toc.js';

const NARROW = '(max-width: 900px)';
const TABS = [['changes', 'Changes'], ['impact', 'Impact']];

function versionLabel(d) {
  const label = d.version || d.title;
  return d.effective_date ? `${label} (in force from ${d.effective_date})` : label;
}

const docOf = (d) => ({ id: d.id, title: d.title, version: d.version, name: titled(d.title, d.version) });

function countsText(counts) {
  return `${plural(counts.total, 'change')}: ${counts.substantive} substantive, ${counts.editorial} editorial`;
}

export function changesScreen(me, documentId, from) {
  const { element, main } = pageFrame(me, null);
  main.classList.add('review-main', 'changes-main');
  const back = () => h('a', { class: 'back-link', href: '/dashboard', 'data-nav': true }, '← Back to the dashboard');
  let gone = false;

  function state(title, ...body) {
    clear(main).append(back(), h('section', { class: 'glass card review-state' }, h('h1', {}, title), ...body));
  }

  function failed(error) {
    if (error instanceof ApiError && error.status === 404) {
      state('No such document', h('p', {}, 'This document is not in your organisation’s library, or it was deleted.'));
    } else if (error instanceof ApiError && error.status === 422) {
      state('No such document', h('p', {}, 'The address does not name a document of the library.'));
    } else {
      state('The change report could not be made', h('p', { class: 'form-error', role: 'alert' }, problemText(error)),
        h('button', { type: 'button', class: 'btn primary', onclick: load }, 'Try again'));
    }
  }

  async function load() {
    clear(main).append(back(), h('p', { class: 'loading', role: 'status' }, 'Reading what changed…'));
    let chain;
    let report;
    let oldId = from;
    try {
      chain = (await get(versionsApi(documentId))).data;
      const at = chain.findIndex((d) => d.id === documentId);
      if (!oldId && at > 0) oldId = chain[at - 1].id;
      if (!oldId) {
        if (gone) return;
        const title = at >= 0 ? titled(chain[at].title, chain[at].version) : 'This document';
        state('No earlier version', h('p', {}, `${title} is the first version of its document: there is nothing to compare it with.`),
          h('p', { class: 'muted' }, 'Upload a new version from the Documents tab (“Upload a new version” on its card), then open what changed.'));
        return;
      }
      report = await get(changesApi(documentId, oldId));
    } catch (error) {
      if (!gone) failed(error);
      return;
    }
    if (!gone) build(report, chain, oldId);
  }

  /** The picker of the earlier version (with more than one), and the later versions. */
  function versionsView(chain, oldId) {
    const at = chain.findIndex((d) => d.id === documentId);
    const earlier = chain.slice(0, Math.max(0, at));
    const later = at >= 0 ? chain.slice(at + 1) : [];
    let picker = null;
    if (earlier.length > 1 || !earlier.some((d) => d.id === oldId)) {
      const select = h('select', {}, earlier.slice().reverse().map((d) => h('option', { value: d.id }, versionLabel(d))));
      if (!earlier.some((d) => d.id === oldId)) select.prepend(h('option', { value: oldId }, 'Another document'));
      select.value = oldId;
      select.addEventListener('change', () => navigate(changesPage(documentId, select.value)));
      picker = h('label', { class: 'audit-filter cr-picker' }, h('span', {}, 'Compared with'), select);
    }
    const next = later.length ? h('a', {
      class: 'btn small ghost', href: changesPage(later[0].id), 'data-nav': true,
      title: 'What changed in the version after this one',
    }, `Next: ${versionLabel(later[0])} →`) : null;
    return picker || next ? h('div', { class: 'cr-versions' }, picker, next) : null;
  }

  function build(report, chain, oldId) {
    document.title = `What changed: ${report.new_name} · Regulatory Intelligence Copilot`;
    const byId = new Map(chain.map((d) => [d.id, d]));
    const docs = {
      old: byId.has(oldId) ? docOf(byId.get(oldId)) : { id: oldId, title: report.old_name, version: '', name: report.old_name },
      new: byId.has(documentId) ? docOf(byId.get(documentId)) : { id: documentId, title: report.new_name, version: '', name: report.new_name },
    };
    const names = { old: report.old_name, new: report.new_name };
    const changes = report.changes || [];
    const head = h('header', { class: 'review-head glass cr-head' },
      h('div', { class: 'review-title' },
        h('h1', {}, h('span', { class: 'muted' }, 'What changed: '), report.old_name, ' → ', report.new_name),
        h('p', { class: 'review-against cr-counts' }, h('strong', {}, countsText(report.counts)))),
      versionsView(chain, oldId));

    const list = createList({ changes, names, onScope: (entry) => pick(entry) });
    const toc = createToc({ toc: report.toc || [], total: changes.length, onPick: (entry) => pick(entry, true) });
    if (window.matchMedia(NARROW).matches) toc.element.open = false;
    function pick(entry, fromToc = false) {
      toc.mark(entry);
      list.scope(entry);
      if (fromToc && window.matchMedia(NARROW).matches) list.toolbar.scrollIntoView({ block: 'start' });
    }
    pick(null);

    const impact = createImpact({
      documentId, from: oldId, docs,
      onShowChange: (n) => {
        select('changes', { remember: true });
        list.reveal(n);
      },
    });
    const panels = {
      changes: h('div', { class: 'cr-layout' }, h('aside', { class: 'cr-aside' }, toc.element),
        h('section', { class: 'cr-main', 'aria-label': 'Changes' }, list.toolbar,
          changes.length ? list.element : h('p', { class: 'review-empty muted' }, 'The two versions say the same: no change.'))),
      impact: impact.element,
    };
    const tabs = new Map(TABS.map(([key, label]) => [key, h('button', {
      type: 'button', role: 'tab', class: 'cr-tab', id: `cr-tab-${key}`, 'aria-controls': `cr-panel-${key}`,
      onclick: () => select(key, { focus: false, remember: true }),
    }, key === 'changes' ? `${label} (${changes.length})` : label)]));
    for (const [key, panel] of Object.entries(panels)) {
      panel.setAttribute('role', 'tabpanel');
      panel.id = `cr-panel-${key}`;
      panel.setAttribute('aria-labelledby', `cr-tab-${key}`);
    }
    const tablist = h('div', { class: 'cr-tabs', role: 'tablist', 'aria-label': 'Change report' }, [...tabs.values()]);
    tablist.addEventListener('keydown', (event) => {
      if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
      event.preventDefault();
      const keys = TABS.map(([key]) => key);
      const at = keys.indexOf(current);
      select(keys[(at + (event.key === 'ArrowRight' ? 1 : keys.length - 1)) % keys.length], { focus: true, remember: true });
    });

    let current = null;
    /** Shows a tab; ``remember`` keeps it in the address (#impact), so a reload stays on it. */
    function select(key, { focus = false, remember = false } = {}) {
      current = key;
      for (const [k, tab] of tabs) {
        const on = k === key;
        tab.setAttribute('aria-selected', String(on));
        tab.tabIndex = on ? 0 : -1;
        panels[k].hidden = !on;
      }
      if (key === 'impact') impact.show();
      if (focus) tabs.get(key).focus();
      if (remember) {
        const { pathname, search } = window.location;
        window.history.replaceState({}, '', `${pathname}${search}${key === 'impact' ? '#impact' : ''}`);
      }
    }
    select(window.location.hash === '#impact' ? 'impact' : 'changes');
    clear(main).append(back(), head, tablist, panels.changes, panels.impact);
  }

  load();
  return {
    element,
    title: 'What changed',
    cleanup: () => { gone = true; },
  };
}
