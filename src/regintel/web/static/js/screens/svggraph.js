// A small SVG graph drawn with DOM APIs only (no library, no markup strings): nodes placed on
// concentric rings by depth from a focused node, or on a sunflower spiral for an overview.
// Every label goes in as a text node, so graph or project text renders inertly.

const SVG = 'http://www.w3.org/2000/svg';
export const WIDTH = 900;
export const HEIGHT = 620;
const LABEL_CHAR_PX = 6.5;

export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.setAttribute('class', value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function short(text, max) {
  const s = String(text || '');
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** Positions by id: rings by depth when every node has one, else a spiral (stable order). */
export function layout(nodes) {
  const positions = new Map();
  const cx = WIDTH / 2;
  const cy = HEIGHT / 2;
  const haveDepth = nodes.length > 0 && nodes.every((n) => Number.isInteger(n.depth));
  if (haveDepth) {
    const rings = new Map();
    for (const node of nodes) {
      if (!rings.has(node.depth)) rings.set(node.depth, []);
      rings.get(node.depth).push(node);
    }
    const maxDepth = Math.max(...rings.keys(), 1);
    const step = (Math.min(WIDTH, HEIGHT) / 2 - 40) / maxDepth;
    for (const [depth, ring] of rings) {
      const offset = depth % 2 ? Math.PI / ring.length : 0;
      ring.forEach((node, i) => {
        if (depth === 0 && ring.length === 1) {
          positions.set(node.id, { x: cx, y: cy });
          return;
        }
        const angle = offset + (2 * Math.PI * i) / ring.length - Math.PI / 2;
        const radius = Math.max(depth, 0.5) * step;
        positions.set(node.id, { x: cx + radius * Math.cos(angle), y: cy + radius * Math.sin(angle) });
      });
    }
    return positions;
  }
  const golden = Math.PI * (3 - Math.sqrt(5));
  const scale = (Math.min(WIDTH, HEIGHT) / 2 - 50) / Math.sqrt(Math.max(nodes.length, 1));
  nodes.forEach((node, i) => {
    const r = scale * Math.sqrt(i + 0.5);
    positions.set(node.id, { x: cx + r * Math.cos(i * golden) * 1.1, y: cy + r * Math.sin(i * golden) });
  });
  return positions;
}

/**
 * Draw into `root` (an <svg>): nodes {id, label, kind, depth?}, edges {id, source, target, rel}.
 * opts: selected (id), focus (id), onSelect(node), labels ('all' | 'auto'), name (aria label).
 */
export function drawGraph(root, nodes, edges, opts = {}) {
  while (root.firstChild) root.removeChild(root.firstChild);
  root.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
  root.setAttribute('role', 'group');
  root.setAttribute('aria-label', opts.name || 'Graph');
  const positions = layout(nodes);
  const haveRings = nodes.length > 0 && nodes.every((n) => Number.isInteger(n.depth));
  const showLabels = opts.labels === 'all' || nodes.length <= 60;
  const lines = svg('g', { class: 'g-edges' });
  for (const edge of edges) {
    const a = positions.get(edge.source);
    const b = positions.get(edge.target);
    if (!a || !b) continue;
    lines.append(svg('line', {
      x1: a.x.toFixed(1), y1: a.y.toFixed(1), x2: b.x.toFixed(1), y2: b.y.toFixed(1),
      class: `g-edge rel-${String(edge.rel).toLowerCase().replace(/[^a-z_]/g, '')}`,
      'data-id': edge.id,
    }, svg('title', {}, edge.rel)));
  }
  const dots = svg('g', { class: 'g-nodes' });
  for (const node of nodes) {
    const p = positions.get(node.id);
    const classes = ['g-node', `kind-${node.kind || 'other'}`];
    if (node.id === opts.selected) classes.push('selected');
    if (node.id === opts.focus) classes.push('focus');
    if (node.fresh) classes.push('fresh');
    const select = () => opts.onSelect && opts.onSelect(node);
    const group = svg('g', {
      class: classes.join(' '), transform: `translate(${p.x.toFixed(1)} ${p.y.toFixed(1)})`,
      tabindex: 0, role: 'button', 'aria-label': `${node.kind || 'node'}: ${node.label}`,
      'data-id': node.id,
      onclick: select,
      onkeydown: (event) => {
        if (event.key === 'Enter' || event.key === ' ') {
          event.preventDefault();
          select();
        }
      },
    }, svg('title', {}, node.label), svg('circle', { r: node.id === opts.focus ? 11 : 7 }));
    if (showLabels || node.id === opts.selected || node.id === opts.focus) {
      // Labels point outwards: to the right of the centre they start at the node, to the left
      // they end at it, so they stay inside the picture.
      const left = p.x < WIDTH / 2 - 5;
      // Cut to the room between the node and the picture's edge (12 px text: about 6.5 px a
      // character), so a label at the far left is shortened, not clipped to "GM Anti-Mon…".
      const room = Math.floor(((left ? p.x : WIDTH - p.x) - 14) / LABEL_CHAR_PX);
      const label = short(node.label, Math.max(8, Math.min(haveRings ? 28 : 22, room)));
      group.append(svg('text', { x: left ? -10 : 10, y: 4, class: 'g-label', 'text-anchor': left ? 'end' : 'start' }, label));
    }
    dots.append(group);
  }
  root.append(lines, dots);
  return positions;
}
