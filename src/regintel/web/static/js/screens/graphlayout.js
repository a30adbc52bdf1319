// Node positions for the graph views, computed here rather than by a force-directed layout:
// they take a few milliseconds for 500 nodes on a slow machine, come out the same for the same
// graph (a reload does not reshuffle the picture), and leave room for the labels.
//   clusters: one disc per group (a concept's domain), hubs in the middle, linked nodes together;
//   rings:    the focused node in the centre, each hop further out on rings of its own.

/** Degree of each node id, counting only edges whose two ends are drawn. */
export function degrees(nodes, edges) {
  const ids = new Set(nodes.map((n) => n.id));
  const degree = new Map(nodes.map((n) => [n.id, 0]));
  for (const e of edges) {
    if (!ids.has(e.source) || !ids.has(e.target)) continue;
    degree.set(e.source, degree.get(e.source) + 1);
    degree.set(e.target, degree.get(e.target) + 1);
  }
  return degree;
}

/**
 * Clusters by `groupOf(node)`: each group a disc of concentric rings filled in breadth-first
 * order from its most connected node (so the hubs sit in the middle with their neighbours
 * around them), the discs packed in rows about as wide
 * as `aspect` times their height. Returns {positions: Map(id → {x, y}), groups: [{key, count,
 * x, y, radius}]}.
 */
export function clusterLayout(nodes, edges, groupOf, { spacing = 52, aspect = 1.5 } = {}) {
  const degree = degrees(nodes, edges);
  const groups = new Map();
  for (const node of nodes) {
    const key = groupOf(node);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(node);
  }
  const adjacent = new Map(nodes.map((n) => [n.id, []]));
  for (const e of edges) {
    if (adjacent.has(e.source) && adjacent.has(e.target)) {
      adjacent.get(e.source).push(e.target);
      adjacent.get(e.target).push(e.source);
    }
  }
  const discs = [...groups].map(([key, members]) => {
    const ordered = breadthFirst(members, adjacent, degree);
    return { key, members: ordered, count: members.length, radius: ringsRadius(members.length, spacing) + spacing / 2 };
  }).sort((a, b) => b.count - a.count || String(a.key).localeCompare(String(b.key)));

  // Shelf packing: discs left to right, a new row when the row is as wide as wanted.
  const gap = spacing * 1.5;
  const area = discs.reduce((sum, d) => sum + (2 * d.radius + gap) ** 2, 0);
  // (a little wider than the exact fit: a row that just misses one more disc looks empty)
  const rowWidth = Math.max(1.2 * Math.sqrt(area * aspect), discs.length ? 2 * discs[0].radius : 0);
  const positions = new Map();
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  for (const disc of discs) {
    const size = 2 * disc.radius;
    if (x > 0 && x + size > rowWidth) {
      x = 0;
      y += rowHeight + gap;
      rowHeight = 0;
    }
    disc.x = x + disc.radius;
    disc.y = y + disc.radius;
    ringSlots(disc.members.length, spacing).forEach((slot, i) => {
      positions.set(disc.members[i].id, { x: disc.x + slot.x, y: disc.y + slot.y });
    });
    x += size + gap;
    rowHeight = Math.max(rowHeight, size);
  }
  return { positions, groups: discs.map(({ key, count, x: gx, y: gy, radius }) => ({ key, count, x: gx, y: gy, radius })) };
}

/**
 * A disc's members in breadth-first order from its most connected node (the next most
 * connected starts the next component), neighbours by degree: linked nodes come one after
 * another, so on the disc's rings, filled in turn, they sit side by side.
 */
function breadthFirst(members, adjacent, degree) {
  const inGroup = new Set(members.map((n) => n.id));
  const byId = new Map(members.map((n) => [n.id, n]));
  const rank = (a, b) => (degree.get(b) - degree.get(a)) || String(byId.get(a).label).localeCompare(String(byId.get(b).label));
  const starts = [...inGroup].sort(rank);
  const seen = new Set();
  const order = [];
  for (const start of starts) {
    if (seen.has(start)) continue;
    seen.add(start);
    const queue = [start];
    while (queue.length) {
      const id = queue.shift();
      order.push(byId.get(id));
      const next = adjacent.get(id).filter((o) => inGroup.has(o) && !seen.has(o)).sort(rank);
      for (const o of next) {
        if (!seen.has(o)) {
          seen.add(o);
          queue.push(o);
        }
      }
    }
  }
  return order;
}

/** Places on concentric rings `spacing` apart, each ring as full as its length allows. */
function ringSlots(count, spacing) {
  const slots = [{ x: 0, y: 0 }];
  for (let ring = 1; slots.length < count; ring += 1) {
    const radius = ring * spacing;
    const capacity = Math.floor((2 * Math.PI * radius) / spacing);
    const here = Math.min(capacity, count - slots.length);
    // a ring that is not full spreads its nodes over the whole circle
    for (let i = 0; i < here; i += 1) {
      const angle = (2 * Math.PI * i) / here - Math.PI / 2 + ring * 0.5;
      slots.push({ x: radius * Math.cos(angle), y: radius * Math.sin(angle) });
    }
  }
  return slots.slice(0, count);
}

function ringsRadius(count, spacing) {
  let placed = 1;
  let ring = 0;
  while (placed < count) {
    ring += 1;
    placed += Math.floor((2 * Math.PI * ring * spacing) / spacing);
  }
  return ring * spacing;
}

/**
 * Rings by hop distance (`node.depth`; none counts as one hop): the focus in the centre; the
 * nodes of one depth fill as many rings as they need with at least `arc` between two nodes on a
 * ring, so the labels under them do not run into each other.
 */
export function ringLayout(nodes, { gap = 150, arc = 120 } = {}) {
  const positions = new Map();
  const byDepth = new Map();
  for (const node of nodes) {
    const depth = Number.isInteger(node.depth) ? node.depth : 1;
    if (!byDepth.has(depth)) byDepth.set(depth, []);
    byDepth.get(depth).push(node);
  }
  let ring = 0;
  for (const depth of [...byDepth.keys()].sort((a, b) => a - b)) {
    const members = byDepth.get(depth).sort((a, b) => String(a.kind).localeCompare(String(b.kind))
      || String(a.label).localeCompare(String(b.label)));
    if (depth === 0 && members.length === 1) {
      positions.set(members[0].id, { x: 0, y: 0 });
      continue;
    }
    let placed = 0;
    while (placed < members.length) {
      ring += 1;
      const radius = ring * gap;
      const capacity = Math.max(6, Math.floor((2 * Math.PI * radius) / arc));
      const onRing = members.slice(placed, placed + capacity);
      // Alternate rings are turned by half a step, so their nodes do not line up in spokes.
      const offset = ring % 2 ? 0 : Math.PI / onRing.length;
      onRing.forEach((node, i) => {
        const angle = offset + (2 * Math.PI * i) / onRing.length - Math.PI / 2;
        positions.set(node.id, { x: radius * Math.cos(angle), y: radius * Math.sin(angle) });
      });
      placed += onRing.length;
    }
  }
  return positions;
}

/**
 * Rows by hop distance, for a neighbourhood too large for rings: the focus alone on the first
 * row, then each depth's nodes by kind and label, wrapped to rows of `width`. Each node has a
 * cell as large as its (wrapped) label, so at zoom 1 no label covers another; returns
 * {positions, height} (the height the picture needs at zoom 1).
 */
export function rowLayout(nodes, width, { cellWidth = 160, cellHeight = 74 } = {}) {
  const columns = Math.max(2, Math.floor(width / cellWidth));
  // the columns share the whole width: spare room goes between the labels
  cellWidth = Math.max(cellWidth, width / columns); // eslint-disable-line no-param-reassign
  const positions = new Map();
  const byDepth = new Map();
  for (const node of nodes) {
    const depth = Number.isInteger(node.depth) ? node.depth : 1;
    if (!byDepth.has(depth)) byDepth.set(depth, []);
    byDepth.get(depth).push(node);
  }
  let row = 0;
  for (const depth of [...byDepth.keys()].sort((a, b) => a - b)) {
    const members = byDepth.get(depth).sort((a, b) => String(a.kind).localeCompare(String(b.kind))
      || String(a.label).localeCompare(String(b.label)));
    for (let start = 0; start < members.length; start += columns) {
      const line = members.slice(start, start + columns);
      // each row centred, so a short row does not hang to the left
      const left = (width - line.length * cellWidth) / 2 + cellWidth / 2;
      line.forEach((node, i) => positions.set(node.id, { x: left + i * cellWidth, y: row * cellHeight + cellHeight / 3 }));
      row += 1;
    }
  }
  return { positions, height: row * cellHeight };
}
