"""Reading a graph picture in the browser tests. Cytoscape.js paints on a canvas, which has no
DOM to query: these read its core (the container's ``cy``) and the state the view writes on
the container (data-mode, data-focus, data-selected, data-count, data-layout)."""

from __future__ import annotations

from typing import Any, cast

from playwright.async_api import Page

# For each drawn node: id, label, its label's size on screen in px, whether the label is
# painted (the view labels only the nodes whose labels it placed; faded ones are not,
# nor any smaller than min-zoomed-font-size), and whether node and label lie inside the picture.
_NODES = """(selector) => {
  const box = document.querySelector(selector);
  const cy = box.cy;
  const w = cy.width();
  const h = cy.height();
  return cy.nodes().not('.cluster').map((n) => {
    const px = parseFloat(n.style('font-size')) * cy.zoom();
    const r = n.renderedBoundingBox({ includeLabels: true });
    const t = n.renderedBoundingBox({ includeNodes: false, includeLabels: true });
    return {
      id: n.id(), label: n.data('label'), px,
      painted: Boolean(n.style('label')) && n.visible() && Number(n.style('text-opacity')) > 0
        && px >= parseFloat(n.style('min-zoomed-font-size')),
      inside: r.x1 >= -1 && r.y1 >= -1 && r.x2 <= w + 1 && r.y2 <= h + 1,
      classes: n.classes(),
      text: [t.x1, t.y1, t.x2, t.y2],
    };
  });
}"""
_EDGES = """(selector) => document.querySelector(selector).cy.edges().map((e) => ({
  id: e.id(), source: e.source().id(), target: e.target().id(), text: e.data('relText') }))"""


async def drawn_nodes(page: Page, selector: str) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], await page.evaluate(_NODES, selector))


async def drawn_edges(page: Page, selector: str) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], await page.evaluate(_EDGES, selector))


async def node_ids(page: Page, selector: str) -> set[str]:
    return {n["id"] for n in await drawn_nodes(page, selector)}


def overlapping_labels(nodes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Pairs of painted labels whose boxes on screen overlap."""
    painted = [n for n in nodes if n["painted"]]
    pairs = []
    for i, a in enumerate(painted):
        ax1, ay1, ax2, ay2 = a["text"]
        for b in painted[i + 1:]:
            bx1, by1, bx2, by2 = b["text"]
            if ax1 < bx2 and bx1 < ax2 and ay1 < by2 and by1 < ay2:
                pairs.append((a["label"], b["label"]))
    return pairs
