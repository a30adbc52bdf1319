// Line icons drawn inline as SVG. Emoji were used before: on a machine without an emoji font
// (many managed Linux desktops, headless browsers) they render as empty boxes, and their look
// changes from one system to the next. These take the text colour and size of where they sit.

const SVG = 'http://www.w3.org/2000/svg';

// 24×24 outlines: paths, and circles as [cx, cy, r].
const SHAPES = {
  document: { paths: ['M6 2h9l5 5v15H6z', 'M15 2v5h5', 'M9 13h6', 'M9 17h6'] },
  globe: { paths: ['M3 12h18', 'M12 3c3.5 3.5 3.5 14.5 0 18', 'M12 3c-3.5 3.5-3.5 14.5 0 18'], circles: [[12, 12, 9]] },
  trash: { paths: ['M4 7h16', 'M9 7V4h6v3', 'M6 7l1 13h10l1-13', 'M10 11v6', 'M14 11v6'] },
  coin: { paths: ['M12 8.5v7'], circles: [[12, 12, 9], [12, 12, 5.5]] },
  alert: { paths: ['M12 7v6', 'M12 16.5v.5'], circles: [[12, 12, 9]] },
  check: { paths: ['M8 12.5l3 3 5-6'], circles: [[12, 12, 9]] },
  warning: { paths: ['M12 3l10 18H2z', 'M12 10v5', 'M12 17.5v.5'] },
  folder: { paths: ['M3 6h6l2 2h10v11H3z'] },
  graph: { paths: ['M8.5 6.8l7-.6', 'M7.3 9.3l3.5 6.4', 'M16.8 8.4l-3.6 7.3'], circles: [[6, 7, 2.5], [18, 6, 2.5], [12, 18, 2.5]] },
  bolt: { paths: ['M13 2L4 14h7l-1 8 9-12h-7z'] },
  send: { paths: ['M3 11l18-8-8 18-2-8z'] },
  menu: { paths: ['M4 6h16', 'M4 12h16', 'M4 18h16'] },
  gear: {
    paths: ['M12 2v3', 'M12 19v3', 'M2 12h3', 'M19 12h3', 'M4.9 4.9L7 7', 'M17 17l2.1 2.1',
      'M4.9 19.1L7 17', 'M17 7l2.1-2.1'],
    circles: [[12, 12, 3], [12, 12, 7]],
  },
  pencil: { paths: ['M4 20l4-1 11-11-3-3L5 16z', 'M14 7l3 3'] },
  close: { paths: ['M6 6l12 12', 'M18 6L6 18'] },
  search: { paths: ['M15.5 15.5L21 21'], circles: [[10.5, 10.5, 6.5]] },
  scales: { paths: ['M12 3v18', 'M7 21h10', 'M4 7h16', 'M4 7l-3 7h6z', 'M20 7l-3 7h6z'] },
  shield: { paths: ['M12 2l8 3v6c0 5-3.5 9-8 11-4.5-2-8-6-8-11V5z'] },
};

/** An inline icon; decorative (hidden from screen readers) unless given a `label`. */
export function icon(name, label = '') {
  const shape = SHAPES[name];
  if (!shape) throw new Error(`unknown icon ${name}`);
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', `icon icon-${name}`);
  if (label) {
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', label);
  } else svg.setAttribute('aria-hidden', 'true');
  for (const d of shape.paths || []) {
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', d);
    svg.append(path);
  }
  for (const [cx, cy, r] of shape.circles || []) {
    const circle = document.createElementNS(SVG, 'circle');
    circle.setAttribute('cx', String(cx));
    circle.setAttribute('cy', String(cy));
    circle.setAttribute('r', String(r));
    svg.append(circle);
  }
  return svg;
}
