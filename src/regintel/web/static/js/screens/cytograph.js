// The graph pictures of the concept graph and project pages, drawn by Cytoscape.js (vendored
// under /static/vendor/cytoscape, see its README): a canvas that stays fast at hundreds of
// nodes, with zoom and pan. Positions come from graphlayout.js. Labels are text the library
// paints on the canvas, so graph text never becomes markup.
//
// The canvas has no DOM to read or tab through, so each view also keeps a folded list of the
// nodes it shows as buttons (keyboard and screen-reader access, and something to click in the
// tests), and states what it shows on the container: data-mode, data-focus, data-selected,
// data-count and data-layout ("done" once positions are set and the view fitted).
import cytoscape from '../../vendor/cytoscape/cytoscape.esm.min.js';
import { clear, h } from '../dom.js';
import { clusterLayout, degrees, ringLayout, rowLayout } from './graphlayout.js';

// Kind colours as app.css has them (.kind-*), for the canvas, which cannot read CSS variables.
export const KIND_COLOURS = {
  project: '#0f172a', goal: '#15803d', requirement: '#7c3aed', risk: '#dc2626', task: '#2563eb',
  milestone: '#0891b2', decision: '#c2410c', plan: '#4d7c0f', document: '#c8941a', output: '#be185d',
  signal: '#64748b', insight: '#64748b', concept: '#2563eb', section: '#c8941a', rule: '#7c3aed', other: '#64748b',
};
const DOMAIN_PALETTE = ['#2563eb', '#15803d', '#c2410c', '#7c3aed', '#0891b2', '#be185d', '#4d7c0f', '#b45309', '#475569'];
const SHAPES = { concept: 'ellipse', section: 'round-rectangle', rule: 'diamond' };
export const SHAPE_NAMES = { concept: 'circle', section: 'rounded square', rule: 'diamond' };
const LABEL_PX = 11; // labels are drawn this big on screen however far the view is zoomed out
const CHAR_PX = 6.4; // about how wide a character of an 11 px label is (bold for a hub)
const MAX_LABEL_PX = 150; // longer labels end in an ellipsis
const MAX_PLACED = 160; // labels placed at once in the overview, beyond those of the chosen node
const MAX_READABLE_ZOOM = 1.6;
const MAX_HEIGHT_PX = 1400;
const RING_MAX = 12; // rings have room for about this many labels; more go in rows
const HUB_SHARE = 0.06; // the most connected nodes of the overview are drawn bigger

/** The group a node is clustered in: its domain, else its kind. */
export function groupKey(node) {
  return node.domain || (node.kind === 'concept' ? 'OTHER' : String(node.kind).toUpperCase());
}

/** A stable colour per domain key: the same domain has the same colour on every page load. */
export function domainColour(key, keys) {
  const index = [...keys].sort().indexOf(key);
  return DOMAIN_PALETTE[(index < 0 ? 0 : index) % DOMAIN_PALETTE.length];
}

const STYLE = [
  { selector: 'node', style: {
    'background-color': 'data(colour)', shape: 'data(shape)', width: 14, height: 14,
    // No label until placed: placeLabels() gives one to the nodes whose labels fit.
    label: '', 'font-size': LABEL_PX, color: '#0f172a', 'text-valign': 'bottom', 'text-margin-y': 3,
    'text-wrap': 'ellipsis', 'text-max-width': MAX_LABEL_PX, 'min-zoomed-font-size': 0,
    'border-width': 1.5, 'border-color': '#ffffff',
    'text-background-color': '#ffffff', 'text-background-opacity': 0.7, 'text-background-padding': 1,
  } },
  { selector: 'node.placed', style: { label: 'data(label)' } },
  { selector: 'node.hub', style: { width: 20, height: 20, 'font-weight': 600 } },
  { selector: 'node.cluster', style: {
    'background-color': 'data(colour)', 'background-opacity': 0.07, shape: 'round-rectangle',
    'border-width': 1, 'border-color': 'data(colour)', 'border-opacity': 0.5,
    label: 'data(label)', 'font-size': 'data(fontSize)', 'font-weight': 700, color: 'data(colour)',
    'text-valign': 'top', 'text-halign': 'center', 'text-margin-y': -6, 'text-wrap': 'none',
    'min-zoomed-font-size': 0, 'text-background-opacity': 0, padding: 16, events: 'no',
    // the discs are packed by their nodes; a label at a disc's edge may reach into the gap,
    // but must not push the box over the next disc
    'compound-sizing-wrt-labels': 'exclude',
  } },
  { selector: 'node.wrap', style: { 'text-wrap': 'wrap' } },
  { selector: 'node.focus', style: { width: 24, height: 24, 'border-width': 3, 'border-color': '#0f172a', 'font-weight': 700, 'text-wrap': 'wrap' } },
  { selector: 'node.selected', style: { 'border-width': 4, 'border-color': '#f59e0b', 'z-index': 20 } },
  { selector: 'node.fresh', style: { 'border-width': 4, 'border-color': '#16a34a' } },
  { selector: 'node.hood', style: { 'text-background-opacity': 0.9, 'z-index': 10 } },
  { selector: '.faded', style: { opacity: 0.15, 'text-opacity': 0 } },
  { selector: 'edge', style: {
    width: 1, 'line-color': '#94a3b8', opacity: 0.55, 'curve-style': 'haystack', 'haystack-radius': 0,
  } },
  { selector: 'edge.rel-defined_in, edge.rel-mentioned_in', style: { 'line-style': 'dashed' } },
  { selector: 'edge.rel-broader, edge.rel-narrower', style: { 'line-color': '#2563eb' } },
  { selector: 'edge.hood', style: { width: 2, opacity: 0.9, 'line-color': '#475569', 'z-index': 9 } },
  { selector: 'edge.named', style: {
    'curve-style': 'bezier', 'target-arrow-shape': 'triangle', 'target-arrow-color': '#94a3b8', 'arrow-scale': 0.8,
    label: 'data(relText)', 'font-size': 9, color: '#475569', 'text-rotation': 'autorotate',
    'text-background-color': '#ffffff', 'text-background-opacity': 0.85, 'text-background-padding': 1,
  } },
];

/**
 * A graph view in `container` (a <div>). opts: name (what the picture is, for its label),
 * colourBy ('domain' | 'kind'), groupLabel(key) for the clusters' titles, onSelect(node),
 * list (an element to fill with the nodes as buttons, or null).
 */
export function graphView(container, opts = {}) {
  const cy = cytoscape({
    container, style: STYLE, minZoom: 0.05, maxZoom: 4, boxSelectionEnabled: false,
    autounselectify: true, layout: { name: 'preset' },
  });
  // The canvas has no DOM of its nodes: the tests (and a developer's console) read the view
  // through the Cytoscape core.
  container.cy = cy;
  container.setAttribute('role', 'img');
  let current = { mode: 'clusters', nodes: [], focus: null, selected: null };
  let last = null; // the last draw's arguments, to lay the picture out again for a new width
  let drawnWidth = 0;
  let resizeFrame = 0;
  // A narrower screen (a phone turned, a window resized) gets the picture laid out for it.
  const resized = new ResizeObserver(() => {
    if (resizeFrame || !last || Math.abs(container.clientWidth - drawnWidth) < 40) return;
    resizeFrame = requestAnimationFrame(() => {
      resizeFrame = 0;
      draw(last.nodes, last.edges, { ...last.view, relayout: true });
    });
  });
  resized.observe(container);

  cy.on('tap', 'node', (event) => {
    const node = event.target;
    if (node.hasClass('cluster')) return;
    if (opts.onSelect) opts.onSelect(node.data('node'));
  });
  cy.on('tap', (event) => {
    if (event.target === cy && current.mode === 'clusters') highlight(null);
  });
  let labelFrame = 0;
  cy.on('viewport', () => {
    if (!labelFrame) labelFrame = requestAnimationFrame(() => { labelFrame = 0; placeLabels(); });
  });

  function colourOf(node, domainKeys) {
    if (opts.colourBy === 'domain' && node.kind === 'concept') return domainColour(groupKey(node), domainKeys);
    return KIND_COLOURS[node.kind] || KIND_COLOURS.other;
  }


  /**
   * Show `nodes` ({id, label, kind, domain?, depth?, fresh?}) and `edges` ({id, source, target,
   * rel, relText?}). view: mode ('clusters' | 'rings'), focus, selected, relayout (false keeps
   * the nodes already shown where they are: a live change must not reshuffle the picture).
   */
  function draw(nodes, edges, view = {}) {
    cy.resize(); // the container was not in the page (no size) when the view was made
    const mode = view.mode || 'clusters';
    // Rings and rows are laid out again on every change (a few dozen nodes, the same places
    // for the same nodes); the overview keeps its nodes where they are.
    const relayout = view.relayout !== false || mode !== current.mode || mode === 'rings' || !cy.nodes().length;
    last = { nodes, edges, view: { ...view, relayout: false } };
    drawnWidth = container.clientWidth;
    current = { mode, nodes, focus: view.focus || null, selected: view.selected || null };
    container.dataset.layout = 'running';
    // Colours by the domains the page knows (opts.domains), not only those drawn now, so a
    // domain keeps its colour from the overview to a focused neighbourhood.
    const domainKeys = new Set([...nodes.filter((n) => n.kind === 'concept').map(groupKey),
      ...(opts.domains ? opts.domains() : [])]);
    const degree = degrees(nodes, edges);
    const hubCut = [...degree.values()].sort((a, b) => b - a)[Math.floor(nodes.length * HUB_SHARE)] || Infinity;
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const kept = edges.filter((e) => byId.has(e.source) && byId.has(e.target));

    let positions;
    let groups = [];
    if (relayout) {
      container.style.removeProperty('height');
      cy.resize();
      if (mode === 'rings' && nodes.length > RING_MAX) {
        // Rows at zoom 1, the picture as tall as they need (CSSOM: the CSP allows it).
        let height;
        ({ positions, height } = rowLayout(nodes, cy.width()));
        if (height + 48 > cy.height()) {
          container.style.height = `${Math.min(height + 48, MAX_HEIGHT_PX)}px`;
          cy.resize();
        }
      } else if (mode === 'rings') positions = ringLayout(nodes);
      else ({ positions, groups } = clusterLayout(nodes, kept, groupKey, { aspect: cy.width() / Math.max(cy.height(), 1) || 1.5 }));
    }
    const clustered = mode === 'clusters';
    const elements = [];
    if (clustered) {
      const sizes = new Map();
      for (const n of nodes) sizes.set(groupKey(n), (sizes.get(groupKey(n)) || 0) + 1);
      const radius = new Map(groups.map((g) => [g.key, g.radius]));
      for (const [key, count] of sizes) {
        const label = `${opts.groupLabel ? opts.groupLabel(key) : key} (${count})`;
        elements.push({ group: 'nodes', classes: 'cluster', data: {
          id: `cluster:${key}`, label, colour: domainColour(key, domainKeys),
          // the title is read at the zoom that fits the whole picture: it grows with its disc
          fontSize: Math.round(Math.max(18, (radius.get(key) || 200) / 7)),
        } });
      }
    }
    for (const node of nodes) {
      const classes = [`kind-${node.kind}`];
      if (clustered && degree.get(node.id) >= hubCut && degree.get(node.id) > 1) classes.push('hub');
      if (!clustered && opts.wrapLabels) classes.push('wrap');
      if (node.id === current.focus) classes.push('focus');
      if (node.id === current.selected) classes.push('selected');
      if (node.fresh) classes.push('fresh');
      elements.push({ group: 'nodes', classes: classes.join(' '), data: {
        id: node.id, label: node.label, node, colour: colourOf(node, domainKeys), shape: SHAPES[node.kind] || 'ellipse',
        parent: clustered ? `cluster:${groupKey(node)}` : undefined,
      } });
    }
    for (const edge of kept) {
      const rel = String(edge.rel).toLowerCase().replace(/[^a-z_]/g, '');
      elements.push({ group: 'edges', classes: `rel-${rel}${edge.relText ? ' named' : ''}`, data: {
        id: edge.id, source: edge.source, target: edge.target, relText: edge.relText || '',
      } });
    }

    const before = new Map(cy.nodes().map((n) => [n.id(), { ...n.position() }]));
    cy.batch(() => {
      cy.elements().remove();
      cy.add(elements);
      for (const n of cy.nodes().not('.cluster')) {
        const p = relayout ? positions.get(n.id()) : before.get(n.id()) || nearNeighbour(n, before);
        if (p) n.position(p);
      }
    });
    container.dataset.mode = mode;
    container.dataset.count = String(nodes.length);
    container.dataset.focus = current.focus || '';
    container.dataset.selected = current.selected || '';
    container.setAttribute('aria-label', `${opts.name || 'Graph'}: ${nodes.length} node(s) and ${kept.length} link(s)`
      + (current.focus ? `, around ${(byId.get(current.focus) || {}).label || current.focus}` : '')
      + (clustered && groups.length > 1 ? `, in ${groups.length} groups` : ''));
    fillList(nodes);
    const finish = () => {
      if (relayout) fitAll();
      if (current.selected && clustered) highlight(current.selected, { animate: false, keepView: !relayout });
      else placeLabels();
      container.dataset.layout = 'done';
    };
    finish();
  }

  /** The whole picture in view with its labels: the labels' size depends on the zoom and the
   * zoom on the labels' room, so twice; a picture of a few nodes is not blown up. */
  function fitAll() {
    if (current.mode !== 'clusters') cy.nodes().not('.cluster').addClass('placed');
    for (let i = 0; i < 2; i += 1) {
      cy.fit(undefined, 24);
      placeLabels();
    }
    const most = current.mode === 'rings' && current.nodes.length > RING_MAX ? 1 : MAX_READABLE_ZOOM;
    if (cy.zoom() > most) {
      cy.zoom(most);
      cy.center();
      placeLabels();
    }
  }

  /** A node new to the picture goes beside a neighbour already drawn, else where it falls. */
  function nearNeighbour(node, before) {
    const other = node.neighborhood('node').filter((n) => before.has(n.id()))[0];
    if (!other) return null;
    const p = before.get(other.id());
    const angle = Math.random() * 2 * Math.PI;
    return { x: p.x + 40 * Math.cos(angle), y: p.y + 40 * Math.sin(angle) };
  }

  /**
   * Which nodes show their label, at a size read on screen (LABEL_PX) however far the view is
   * zoomed out. A ring view (a focused neighbourhood, a project) labels every node. The
   * overview labels the chosen node and its neighbours, then as many others as fit without
   * overlapping a label already placed, the most connected first: zoomed out that is the hubs,
   * and more appear as one zooms in (as on a map).
   */
  function placeLabels() {
    const zoom = cy.zoom();
    const scale = 1 / Math.min(zoom, 1);
    cy.style().selector('node').style({ 'font-size': LABEL_PX * scale, 'text-max-width': MAX_LABEL_PX * scale }).update();
    const nodes = cy.nodes().not('.cluster');
    if (current.mode !== 'clusters') {
      nodes.addClass('placed');
      return;
    }
    const { x1, y1, x2, y2 } = cy.extent();
    const inView = nodes.filter((n) => {
      const p = n.position();
      return p.x >= x1 && p.x <= x2 && p.y >= y1 && p.y <= y2;
    });
    const forced = inView.filter('.hood');
    const rest = inView.not('.hood').not('.faded').sort((a, b) => b.degree() - a.degree());
    const boxes = [];
    const placed = [];
    const grow = Math.max(zoom, 1); // zoomed in, the labels are drawn larger than LABEL_PX
    const boxOf = (n) => {
      const p = n.renderedPosition();
      // a little larger than the painted text (its background, the node above it): room
      const w = (Math.min(String(n.data('label')).length * CHAR_PX, MAX_LABEL_PX) / 2) * grow + 3;
      // below the node (up to 12 px at zoom 1, a hub's bigger) come the label's lines
      return { x1: p.x - w, x2: p.x + w, y1: p.y + 2, y2: p.y + (12 + LABEL_PX * 1.6) * grow };
    };
    const width = cy.width();
    const height = cy.height();
    const clear_ = (b) => b.x1 >= 0 && b.y1 >= 0 && b.x2 <= width && b.y2 <= height
      && boxes.every((o) => b.x2 < o.x1 || b.x1 > o.x2 || b.y2 < o.y1 || b.y1 > o.y2);
    for (const n of forced) {
      boxes.push(boxOf(n));
      placed.push(n);
    }
    for (const n of rest) {
      if (placed.length - forced.length >= MAX_PLACED) break;
      const b = boxOf(n);
      if (!clear_(b)) continue;
      boxes.push(b);
      placed.push(n);
    }
    cy.batch(() => {
      nodes.removeClass('placed');
      for (const n of placed) n.addClass('placed');
    });
  }

  /** The node and its neighbours stand out, with labels, and the view moves to them; the rest
   * fades. null clears it. */
  function highlight(id, { animate = true, keepView = false } = {}) {
    cy.elements().removeClass('hood faded selected');
    current.selected = id;
    container.dataset.selected = id || '';
    const node = id ? cy.getElementById(id) : null;
    if (!node || !node.length) {
      placeLabels();
      return;
    }
    node.addClass('selected');
    if (current.mode !== 'clusters') return;
    const hood = node.closedNeighborhood();
    cy.elements().not(hood).not('.cluster').addClass('faded');
    hood.addClass('hood');
    if (keepView) {
      placeLabels();
      return;
    }
    const zoom = Math.min(MAX_READABLE_ZOOM, zoomToFit(hood));
    if (animate) cy.animate({ zoom, center: { eles: hood } }, { duration: 250, complete: placeLabels });
    else {
      cy.zoom(zoom);
      cy.center(hood);
      placeLabels();
    }
  }

  function zoomToFit(eles) {
    const box = eles.boundingBox();
    const pad = 60;
    return Math.min((cy.width() - pad) / Math.max(box.w, 1), (cy.height() - pad) / Math.max(box.h, 1));
  }

  function fillList(nodes) {
    if (!opts.list) return;
    const items = [...nodes].sort((a, b) => String(a.label).localeCompare(String(b.label)));
    clear(opts.list).append(...items.map((n) => h('li', {}, h('button', {
      type: 'button', class: 'link-btn', dataset: { id: n.id },
      onclick: () => opts.onSelect && opts.onSelect(n),
    }, n.label))));
  }

  return {
    cy, draw, highlight,
    fit: fitAll,
    destroy: () => {
      if (labelFrame) cancelAnimationFrame(labelFrame);
      if (resizeFrame) cancelAnimationFrame(resizeFrame);
      resized.disconnect();
      cy.destroy();
    },
  };
}

/** The legend: one swatch per colour in use and, for the concept graph, one per shape. */
export function legendItems(entries) {
  return entries.map(({ label, colour, shape }) => {
    const swatch = h('span', { class: `legend-swatch${shape ? ` shape-${shape}` : ''}`, 'aria-hidden': 'true' });
    // CSSOM, not a style attribute: the CSP allows the former only.
    if (colour) swatch.style.setProperty('--swatch', colour);
    return h('span', { class: 'legend-item' }, swatch, label);
  });
}
