// The concept graph: an overview of the concepts, a search, a focused neighbourhood drawn on
// concentric rings by hop distance, the details of a node, and live updates from
// /api/graph/stream (EventSource) that add, update and remove nodes and edges as they happen.
import { ApiError, get } from '../api.js';
import { append, clear, h, safeUrl } from '../dom.js';
import { problemText } from './common.js';
import { pageFrame } from './page.js';
import { drawGraph } from './svggraph.js';

const OVERVIEW_LIMIT = 300;
const FOCUS_LIMIT = 80;
const MAX_LOG = 20;

/** "DATA_PROTECTION" → "Data protection". */
function humanise(key) {
  // An acronym stays one ("AI", "AML"); other words are lower-cased after the first.
  const words = String(key).split('_').map((w) => (w.length <= 3 ? w : w.toLowerCase()));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function kindOf(labels) {
  if (labels.includes('Concept')) return 'concept';
  if (labels.includes('Section')) return 'section';
  if (labels.includes('Rule')) return 'rule';
  return 'other';
}

/** A node as GET /api/graph shows it, from a patch's labels and properties. */
function nodeFromPatch(patch) {
  const p = patch.properties || {};
  const list = (v) => (Array.isArray(v) ? v.map(String) : (v ? [String(v)] : []));
  const title = [p.clause, p.title].filter(Boolean).join(' — ');
  return {
    id: patch.id, labels: patch.labels || [], kind: kindOf(patch.labels || []),
    label: String(p.prefLabel || title || patch.id), prefLabel: p.prefLabel || null,
    altLabels: list(p.altLabels), definition: p.definition || null, domain: p.domain || null,
    jurisdiction: p.jurisdiction || null, sourceUrls: list(p.sourceUrls), url: p.url || null,
    document: p.document || null, clause: p.clause || null, title: p.title || null,
  };
}

export function graphScreen(me) {
  const state = {
    mode: 'overview', focus: null, selected: null, nodes: new Map(), edges: new Map(),
    depth: new Map(), known: new Map(), source: null, closed: false, frame: 0,
  };
  const canvas = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  canvas.setAttribute('class', 'graph-canvas');
  const status = h('p', { class: 'muted graph-status', role: 'status' }, 'Loading the graph…');
  const live = h('span', { class: 'live-dot off', title: 'Live updates' }, 'Connecting…');
  const searchInput = h('input', { type: 'search', id: 'graph-q', name: 'q', placeholder: 'e.g. personal data', autocomplete: 'off', maxlength: 200 });
  const results = h('ul', { class: 'graph-results', 'aria-label': 'Search results' });
  const details = h('section', { class: 'glass card graph-details', 'aria-label': 'Node details' },
    h('p', { class: 'muted' }, 'Choose a node to see its definition, sources and neighbours.'));
  const log = h('ol', { class: 'graph-log', 'aria-label': 'Changes', hidden: true });
  const overviewBtn = h('button', { type: 'button', class: 'btn small', onclick: () => loadOverview() }, 'Overview');

  const form = h('form', { class: 'graph-search', role: 'search', onsubmit: (event) => { event.preventDefault(); search(searchInput.value); } },
    h('label', { for: 'graph-q' }, 'Search concepts'), searchInput,
    h('button', { type: 'submit', class: 'btn primary small' }, 'Search'), overviewBtn);

  const { element } = pageFrame(me, '/graph',
    h('div', { class: 'page-head' }, h('h1', {}, 'Concept graph'), live),
    h('p', { class: 'muted' }, 'Concepts defined by the public regulations (SKOS: preferred and alternative labels, definitions, sources) and the sections that define them. It grows as documents and conversations capture concepts.'),
    form,
    h('div', { class: 'graph-layout' },
      h('section', { class: 'glass graph-panel panel-stack', 'aria-label': 'Graph' }, status, canvas),
      h('div', { class: 'graph-side' },
        h('section', { class: 'glass card live-changes', 'aria-label': 'Live changes' }, h('h2', {}, 'Live changes'),
          h('p', { class: 'muted empty-note' }, 'Concepts added, updated or removed while you watch show here.'), log),
        results, details)));

  function schedule() {
    if (state.frame) return;
    state.frame = requestAnimationFrame(() => {
      state.frame = 0;
      render();
    });
  }

  function render() {
    const nodes = [...state.nodes.values()].map((n) => ({ ...n, depth: state.mode === 'focus' ? state.depth.get(n.id) : undefined }));
    const edges = [...state.edges.values()].filter((e) => state.nodes.has(e.source) && state.nodes.has(e.target));
    drawGraph(canvas, nodes, edges, {
      selected: state.selected, focus: state.focus, name: 'Concept graph',
      onSelect: (node) => selectNode(node.id),
    });
    const where = state.mode === 'focus' ? `around ${(state.nodes.get(state.focus) || {}).label || state.focus}` : 'concepts';
    status.textContent = state.nodes.size
      ? `${state.nodes.size} node(s) and ${edges.length} edge(s) — ${where}.`
      : 'The graph is empty so far: concepts appear here as regulations are seeded and conversations capture them.';
  }

  function setView(data, mode) {
    state.mode = mode;
    state.focus = data.focus || null;
    state.nodes = new Map(data.nodes.map((n) => [n.id, n]));
    state.edges = new Map(data.edges.map((e) => [e.id, e]));
    state.depth = new Map(Object.entries(data.depth || {}));
    for (const n of data.nodes) state.known.set(n.id, n);
    render();
  }

  async function loadOverview() {
    clear(results);
    try {
      const data = await get(`/api/graph?limit=${OVERVIEW_LIMIT}`);
      setView(data, 'overview');
      if (!state.source) openStream(data.cursor);
    } catch (error) {
      status.textContent = `The graph could not be loaded: ${problemText(error)}`;
    }
  }

  async function focusOn(id) {
    try {
      const data = await get(`/api/graph?focus=${encodeURIComponent(id)}&depth=1&limit=${FOCUS_LIMIT}`);
      setView(data, 'focus');
      await selectNode(id);
    } catch (error) {
      status.textContent = problemText(error);
    }
  }

  /** What tells a node from another of the same label: its domain, jurisdiction and source
   * (the document or the first source's host), else its id. */
  function distinguishing(node) {
    let host = '';
    try {
      host = node.sourceUrls && node.sourceUrls.length ? new URL(node.sourceUrls[0]).hostname : '';
    } catch {
      host = '';
    }
    const parts = [node.domain ? humanise(node.domain) : '', node.jurisdiction || '', node.document || host]
      .filter(Boolean);
    return parts.length ? parts.join(' · ') : node.id;
  }

  async function search(q) {
    const text = q.trim();
    clear(results);
    if (!text) return loadOverview();
    let data;
    try {
      data = await get(`/api/graph?q=${encodeURIComponent(text)}&sections=true&limit=12`);
    } catch (error) {
      results.append(h('li', { class: 'form-error' }, problemText(error)));
      return undefined;
    }
    if (!data.nodes.length) {
      results.append(h('li', { class: 'muted' }, `Nothing in the graph matches “${text}”.`));
      return undefined;
    }
    // One chip per node, and two that would read the same ("personal data" defined by two
    // laws) say what tells them apart: domain, jurisdiction, source.
    const nodes = [...new Map(data.nodes.map((n) => [n.id, n])).values()];
    const seen = new Map();
    for (const node of nodes) seen.set(`${node.kind}|${node.label}`, (seen.get(`${node.kind}|${node.label}`) || 0) + 1);
    const details = new Map(nodes.filter((n) => seen.get(`${n.kind}|${n.label}`) > 1)
      .map((n) => [n.id, distinguishing(n)]));
    const detailCount = new Map();
    for (const d of details.values()) detailCount.set(d, (detailCount.get(d) || 0) + 1);
    for (const node of nodes) {
      const found = details.get(node.id) || '';
      const detail = found && detailCount.get(found) > 1 ? node.id : found;
      results.append(h('li', {}, h('button', { type: 'button', class: 'chip-btn', onclick: () => focusOn(node.id) },
        h('span', { class: `kind-tag kind-${node.kind}` }, node.kind), ` ${node.label}`,
        detail ? h('span', { class: 'chip-detail' }, ` · ${detail}`) : null)));
    }
    return focusOn(data.nodes[0].id);
  }

  async function selectNode(id) {
    state.selected = id;
    schedule();
    let detail;
    try {
      detail = await get(`/api/graph/nodes/${encodeURIComponent(id)}`);
    } catch (error) {
      clear(details).append(h('p', { class: 'form-error' }, error instanceof ApiError && error.status === 404 ? 'This node is no longer in the graph.' : problemText(error)));
      return;
    }
    if (state.selected !== id) return;
    showDetails(detail);
  }

  function showDetails(detail) {
    const n = detail.node;
    const facts = [n.kind, n.domain, n.jurisdiction, n.document].filter(Boolean).join(' · ');
    const sources = [...n.sourceUrls, n.url].filter(Boolean).map((u) => {
      const href = safeUrl(u);
      return h('li', {}, href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, u) : u);
    });
    const neighbours = detail.neighbours.map((nb) => h('li', {},
      h('span', { class: 'rel' }, nb.direction === 'out' ? `${nb.edge.rel} →` : `← ${nb.edge.rel}`), ' ',
      h('button', { type: 'button', class: 'link-btn', onclick: () => focusOn(nb.node.id) }, nb.node.label)));
    append(clear(details), [
      h('h2', { class: 'node-title' }, n.prefLabel || n.label),
      h('p', { class: 'muted node-facts' }, facts),
      n.altLabels.length ? h('p', { class: 'alt-labels' }, h('strong', {}, 'Also: '), n.altLabels.join(', ')) : null,
      n.definition ? h('p', { class: 'definition' }, n.definition) : (n.title ? h('p', {}, n.title) : h('p', { class: 'muted' }, 'No definition yet.')),
      sources.length ? h('div', {}, h('h3', {}, 'Sources'), h('ul', { class: 'plain-list sources-list' }, sources)) : null,
      h('h3', {}, `Neighbours (${detail.count})`),
      neighbours.length ? h('ul', { class: 'plain-list neighbour-list' }, neighbours) : h('p', { class: 'muted' }, 'None.'),
      state.focus !== n.id ? h('button', { type: 'button', class: 'btn small', onclick: () => focusOn(n.id) }, 'Focus on this node') : null]);
  }

  function note(text, id) {
    const item = h('li', {}, h('time', {}, new Date().toLocaleTimeString()), ' ',
      id ? h('button', { type: 'button', class: 'link-btn', onclick: () => focusOn(id) }, text) : text);
    log.prepend(item);
    log.hidden = false;
    while (log.children.length > MAX_LOG) log.lastChild.remove();
  }

  function applyPatch(patch) {
    if (patch.kind === 'node') {
      if (patch.op === 'remove') {
        state.known.delete(patch.id);
        if (state.nodes.delete(patch.id)) note(`Removed: ${patch.id}`);
        for (const [id, e] of state.edges) if (e.source === patch.id || e.target === patch.id) state.edges.delete(id);
        if (state.selected === patch.id) selectNode(patch.id);
      } else {
        const node = { ...nodeFromPatch(patch), fresh: true };
        const shown = state.nodes.has(node.id);
        state.known.set(node.id, node);
        if (shown || (state.mode === 'overview' && node.kind === 'concept')) state.nodes.set(node.id, node);
        note(`${patch.op === 'add' ? 'Added' : 'Updated'} ${node.kind}: ${node.label}`, node.id);
        if (state.selected === node.id) selectNode(node.id);
      }
    } else if (patch.op === 'remove') {
      state.edges.delete(patch.id);
    } else {
      const edge = { id: patch.id, source: patch.source, target: patch.target, rel: patch.rel };
      state.edges.set(edge.id, edge);
      // In a focused view a new edge brings its other end in, one ring further out.
      for (const [inside, other] of [[edge.source, edge.target], [edge.target, edge.source]]) {
        if (state.nodes.has(inside) && !state.nodes.has(other) && state.known.has(other)) {
          state.nodes.set(other, state.known.get(other));
          state.depth.set(other, (state.depth.get(inside) || 0) + 1);
        }
      }
    }
    schedule();
  }

  function openStream(cursor) {
    if (state.closed) return;
    const since = Number.isFinite(cursor) ? `?since=${cursor}` : '';
    const source = new EventSource(`/api/graph/stream${since}`);
    state.source = source;
    source.addEventListener('ready', () => {
      live.textContent = 'Live';
      live.className = 'live-dot on';
    });
    source.addEventListener('patch', (event) => {
      try {
        applyPatch(JSON.parse(event.data));
      } catch {
        // a malformed event is skipped; the next ones still apply
      }
    });
    // The server no longer keeps removals this old: reload the view, and follow the changes
    // from its new cursor.
    source.addEventListener('resync', async () => {
      source.close();
      state.source = null;
      const focus = state.mode === 'focus' ? state.focus : null;
      note('The view had fallen behind and was reloaded.');
      await loadOverview(); // reopens the stream from the server's cursor
      if (focus) await focusOn(focus);
    });
    source.addEventListener('error', () => {
      live.textContent = source.readyState === EventSource.CLOSED ? 'Offline' : 'Reconnecting…';
      live.className = 'live-dot off';
    });
  }

  loadOverview();
  return {
    element, title: 'Concept graph',
    cleanup: () => {
      state.closed = true;
      if (state.source) state.source.close();
      if (state.frame) cancelAnimationFrame(state.frame);
    },
  };
}
