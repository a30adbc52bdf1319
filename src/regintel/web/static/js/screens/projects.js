// Compliance projects: the list (and a form to create one), and a project's page with its
// bounded snapshot (a graph by depth from the project, drawn by cytograph.js as the concept
// graph is; nodes by kind, links), coverage
// per kind, forms to add entities and links, and a preview of the context the chat gets.
import { del, get, post } from '../api.js';
import { append, clear, formatDate, h } from '../dom.js';
import { icon } from '../icons.js';
import { field, onSubmit, problemText } from './common.js';
import { pageFrame } from './page.js';
import { KIND_COLOURS, graphView, legendItems } from './cytograph.js';
import { navigate } from '../navigation.js';

const KINDS = ['goal', 'requirement', 'risk', 'task', 'milestone', 'decision', 'plan', 'document', 'output', 'signal', 'insight'];
const KIND_NAMES = {
  goal: 'Goal', requirement: 'Requirement', risk: 'Risk', task: 'Task', milestone: 'Milestone', decision: 'Decision',
  plan: 'Plan', document: 'Document', output: 'Output', signal: 'Signal', insight: 'Insight', project: 'Project',
};
// The column that names an entity of each kind (as the ontology says).
const LABEL_FIELD = {
  goal: 'name', requirement: 'text', risk: 'title', task: 'title', milestone: 'title', decision: 'title',
  plan: 'name', document: 'title', output: 'name', signal: 'channel', insight: 'title',
};
let relationsCache = null;

/** A relation as words: "has_task" → "has task" (the id stays the API's). */
function relationName(rel) {
  return String(rel || '').replace(/_/g, ' ');
}

function plural(kind) {
  return `${KIND_NAMES[kind] || kind}s`;
}

export function projectsScreen(me) {
  const id = new URLSearchParams(window.location.search).get('project');
  return id ? projectPage(me, id) : projectList(me);
}

function projectList(me) {
  const list = h('div', { class: 'project-list' }, h('p', { class: 'muted' }, 'Loading projects…'));
  const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const name = h('input', { name: 'name', required: true, maxlength: 200, placeholder: 'e.g. AML programme 2026' });
  const description = h('textarea', { name: 'description', rows: 2, maxlength: 2000, placeholder: 'What the programme must achieve' });
  const form = h('form', { class: 'glass card project-create' },
    h('h2', {}, 'New project'), field('Project name', name), field('Description (optional)', description), error,
    h('button', { type: 'submit', class: 'btn primary' }, 'Create project'));
  onSubmit(form, error, async () => {
    const body = { name: name.value };
    if (description.value.trim()) body.description = description.value.trim();
    const created = await post('/api/projects', body);
    navigate(`/projects?project=${encodeURIComponent(created.id)}`);
  });

  const { element } = pageFrame(me, '/projects',
    h('h1', {}, 'Projects'),
    h('p', { class: 'muted' }, 'A project is a compliance programme — its goals, requirements, risks, decisions and tasks. A conversation scoped to a project is grounded in its snapshot.'),
    h('div', { class: 'projects-grid' }, h('section', { class: 'glass card panel-stack', 'aria-label': 'Your projects' }, list), form));

  get('/api/projects').then((data) => {
    clear(list);
    if (!data.count) {
      list.append(h('p', { class: 'muted' }, 'No projects yet: create the first one.'));
      return;
    }
    list.append(h('ul', { class: 'plain-list cards' }, data.data.map((p) => h('li', { class: 'project-card' },
      h('a', { href: `/projects?project=${encodeURIComponent(p.id)}`, 'data-nav': true, class: 'project-name' }, p.name),
      h('span', { class: 'chip' }, p.state_key),
      p.description ? h('p', { class: 'muted' }, p.description) : null,
      h('p', { class: 'help' }, `Updated ${formatDate(p.updated_at)}`)))));
  }).catch((e) => {
    clear(list).append(h('p', { class: 'form-error' }, problemText(e)));
  });
  return { element, title: 'Projects' };
}

function coverageTable(coverage) {
  const rows = Object.entries(coverage).filter(([, c]) => c.total > 0);
  if (!rows.length) return h('p', { class: 'muted' }, 'No entities yet: add goals, risks and tasks below.');
  return h('table', { class: 'coverage-table' },
    h('caption', {}, 'Coverage by kind'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Kind'), h('th', { scope: 'col' }, 'Total'),
      h('th', { scope: 'col' }, 'Linked to the project'), h('th', { scope: 'col' }, 'Unlinked'))),
    h('tbody', {}, rows.map(([kinds, c]) => h('tr', { dataset: { kind: kinds } },
      h('th', { scope: 'row' }, kinds), h('td', {}, String(c.total)), h('td', {}, String(c.direct)),
      h('td', { class: c.unlinked ? 'warn' : '' }, String(c.unlinked))))));
}

function projectPage(me, projectId) {
  const base = `/api/projects/${encodeURIComponent(projectId)}`;
  const title = h('h1', {}, 'Project');
  const summary = h('div', { class: 'project-summary' });
  const canvas = h('div', { class: 'graph-canvas project-graph' });
  const legend = h('p', { class: 'legend' });
  const nodeList = h('ul', { class: 'plain-list graph-node-list' });
  const view = graphView(canvas, { name: 'Project snapshot', colourBy: 'kind', wrapLabels: true, list: nodeList,
    onSelect: (node) => view.highlight(node.id) });
  const snapshotNote = h('p', { class: 'muted' });
  const coverage = h('div', { class: 'coverage' }, h('p', { class: 'muted' }, 'Loading…'));
  const byKind = h('div', { class: 'by-kind' });
  const links = h('ul', { class: 'plain-list link-list', 'aria-label': 'Links' });
  const contextOut = h('div', { class: 'context-preview' });
  const status = h('p', { class: 'form-error', role: 'alert', hidden: true });
  let entities = [];
  let project = null;

  // -- add an entity
  const kindSelect = h('select', { name: 'kind' }, KINDS.map((k) => h('option', { value: k }, KIND_NAMES[k])));
  const nameInput = h('input', { name: 'title', required: true, maxlength: 500 });
  const impact = h('select', { name: 'impact' }, ['', 'low', 'medium', 'high', 'critical'].map((v) => h('option', { value: v }, v || '—')));
  const impactField = field('Impact', impact);
  const entityError = h('p', { class: 'form-error', role: 'alert', hidden: true });
  kindSelect.addEventListener('change', () => { impactField.hidden = kindSelect.value !== 'risk'; });
  impactField.hidden = true;
  const entityForm = h('form', { class: 'glass card', 'aria-label': 'Add to the project' },
    h('h2', {}, 'Add to the project'), field('Kind', kindSelect), field('Title', nameInput), impactField, entityError,
    h('button', { type: 'submit', class: 'btn primary' }, 'Add'));
  onSubmit(entityForm, entityError, async () => {
    const kind = kindSelect.value;
    const fields = { [LABEL_FIELD[kind]]: nameInput.value.trim() };
    if (kind === 'risk' && impact.value) fields.impact = impact.value;
    await post(`${base}/entities/${kind}`, { fields });
    nameInput.value = '';
    await load();
    nameInput.focus();
  });

  // -- link two entities
  const fromSelect = h('select', { name: 'src' });
  const relSelect = h('select', { name: 'rel' });
  const toSelect = h('select', { name: 'dst' });
  const linkError = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const kindOfId = (id) => (id === projectId ? 'project' : (entities.find((e) => e.id === id) || {}).kind);
  function fillRelations() {
    const src = kindOfId(fromSelect.value);
    const dst = kindOfId(toSelect.value);
    const allowed = (relationsCache || []).filter((r) => r.src_kind === src && r.dst_kind === dst).map((r) => r.rel);
    clear(relSelect).append(...(allowed.length ? allowed.map((r) => h('option', { value: r }, r.replace(/_/g, ' ')))
      : [h('option', { value: '' }, 'no relation allowed')]));
  }
  fromSelect.addEventListener('change', fillRelations);
  toSelect.addEventListener('change', fillRelations);
  const linkForm = h('form', { class: 'glass card', 'aria-label': 'Link two entities' },
    h('h2', {}, 'Link two entities'), field('From', fromSelect), field('Relation', relSelect), field('To', toSelect), linkError,
    h('button', { type: 'submit', class: 'btn primary' }, 'Link'));
  onSubmit(linkForm, linkError, async () => {
    await post(`${base}/links`, { src_id: fromSelect.value, rel: relSelect.value, dst_id: toSelect.value });
    await load();
  });

  const previewBtn = h('button', {
    type: 'button', class: 'btn small',
    onclick: async () => {
      clear(contextOut).append(h('p', { class: 'muted' }, 'Building the context…'));
      try {
        const ctx = await get(`${base}/context`);
        clear(contextOut).append(
          h('p', { class: 'context-tokens' }, `≈ ${ctx.tokens} tokens (${ctx.characters} characters) of ${ctx.kind} context`),
          h('pre', { class: 'context-json', tabindex: 0 }, JSON.stringify(ctx.data, null, 2)));
      } catch (e) {
        clear(contextOut).append(h('p', { class: 'form-error' }, problemText(e)));
      }
    },
  }, 'Preview the chat context');

  const linkCount = h('span', { class: 'muted' });
  const { element } = pageFrame(me, '/projects',
    h('a', { href: '/projects', 'data-nav': true, class: 'back-link' }, '← All projects'),
    h('div', { class: 'project-head' }, title,
      h('a', { class: 'btn primary', href: `/dashboard?project=${encodeURIComponent(projectId)}`, 'data-nav': true }, 'Ask about this project')),
    summary, status,
    h('div', { class: 'project-layout' },
      h('section', { class: 'glass card snapshot', 'aria-label': 'Snapshot' }, h('h2', {}, 'Snapshot'), snapshotNote, canvas, legend,
        h('details', { class: 'fold graph-list' }, h('summary', {}, 'Nodes in the picture'), nodeList)),
      h('section', { class: 'glass card', 'aria-label': 'Coverage' }, h('h2', {}, 'Coverage'), coverage,
        h('h2', {}, 'Nodes by kind'), byKind)),
    h('div', { class: 'project-forms' }, entityForm, linkForm),
    // Long lists fold away, so the page starts with the picture, the coverage and the forms.
    h('section', { class: 'glass card', 'aria-label': 'Links' },
      h('details', { class: 'fold' }, h('summary', {}, h('h2', {}, 'Links'), ' ', linkCount), links)),
    h('section', { class: 'glass card', 'aria-label': 'Chat context' },
      h('details', { class: 'fold' }, h('summary', {}, h('h2', {}, 'Chat context')),
        h('p', { class: 'muted' }, 'What the assistant reads when a conversation is scoped to this project.'), previewBtn, contextOut)));

  const nameOf = new Map();

  function renderSnapshot(snap) {
    project = snap.project;
    title.textContent = project.name;
    append(clear(summary), [h('span', { class: 'chip' }, project.state_key),
      project.description ? h('p', {}, project.description) : null]);
    const s = snap.snapshot;
    nameOf.clear();
    for (const n of s.nodes) nameOf.set(n.id, n);
    view.draw(s.nodes.map((n) => ({ id: n.id, label: n.name, kind: n.kind, depth: n.depth })),
      s.edges.map((e) => ({ id: e.id, source: e.src_id, target: e.dst_id, rel: e.rel, relText: relationName(e.rel) })),
      { mode: 'rings', focus: s.root_id });
    const kinds = [...new Set(s.nodes.map((n) => n.kind))];
    clear(legend).append(...legendItems(kinds.map((k) => ({ label: KIND_NAMES[k] || k, colour: KIND_COLOURS[k] || KIND_COLOURS.other }))));
    const over = s.overflow.nodes || s.overflow.edges
      ? ` The caps left out ${s.overflow.nodes} node(s) and ${s.overflow.edges} edge(s).` : '';
    snapshotNote.textContent = `${s.nodes.length} node(s), ${s.edges.length} edge(s), up to ${s.max_depth} hops from the project.${over}`;
    clear(coverage).append(coverageTable(snap.coverage));
    const groups = new Map();
    for (const n of s.nodes) {
      if (n.kind === 'project') continue;
      if (!groups.has(n.kind)) groups.set(n.kind, []);
      groups.get(n.kind).push(n);
    }
    clear(byKind).append(...(groups.size ? [...groups].map(([kind, rows]) => h('details', { class: 'kind-group fold', dataset: { kind }, open: rows.length <= 3 },
      h('summary', {}, h('h3', {}, `${plural(kind)} (${rows.length})`)),
      h('ul', { class: 'plain-list' }, rows.map((n) => h('li', {}, h('span', { class: `kind-dot kind-${kind}`, 'aria-hidden': 'true' }),
        n.name, n.state_key ? h('span', { class: 'chip' }, n.state_key) : null, n.direct_edge ? null : h('span', { class: 'chip warn' }, 'not linked')))))) : [h('p', { class: 'muted' }, 'Nothing yet.')]));
    linkCount.textContent = `(${s.edges.length})`;
    clear(links).append(...(s.edges.length ? s.edges.map((e) => h('li', {},
      h('span', {}, (nameOf.get(e.src_id) || {}).name || e.src_id), ' ', h('span', { class: 'rel' }, relationName(e.rel)), ' ',
      h('span', {}, (nameOf.get(e.dst_id) || {}).name || e.dst_id), ' ',
      h('button', {
        type: 'button', class: 'icon-btn danger', 'aria-label': `Remove link ${relationName(e.rel)}`,
        onclick: async () => {
          try {
            await del(`${base}/links/${encodeURIComponent(e.id)}`);
            await load();
          } catch (err) {
            status.textContent = problemText(err);
            status.hidden = false;
          }
        },
      }, icon('close')))) : [h('li', { class: 'muted' }, 'No links yet.')]));
  }

  function fillEntityOptions() {
    const options = () => [h('option', { value: projectId }, `Project: ${project ? project.name : ''}`),
      ...entities.map((e) => h('option', { value: e.id }, `${KIND_NAMES[e.kind]}: ${e.label}`))];
    const from = fromSelect.value;
    const to = toSelect.value;
    clear(fromSelect).append(...options());
    clear(toSelect).append(...options());
    if (from) fromSelect.value = from;
    if (to) toSelect.value = to;
    else if (entities.length) toSelect.value = entities[0].id;
    fillRelations();
  }

  async function load() {
    status.hidden = true;
    try {
      const [snap, list, rules] = await Promise.all([get(`${base}/snapshot`), get(`${base}/entities?limit=1000`),
        relationsCache ? Promise.resolve(null) : get('/api/projects/relations')]);
      if (rules) relationsCache = rules.data;
      entities = list.data;
      renderSnapshot(snap);
      fillEntityOptions();
    } catch (e) {
      status.textContent = problemText(e);
      status.hidden = false;
      clear(coverage);
    }
  }

  load();
  return { element, title: 'Project', cleanup: () => view.destroy() };
}
