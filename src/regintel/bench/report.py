"""How every ``regintel bench`` command prints: an aligned table, or JSON with ``--json``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any


def render_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[str(h) for h in headers]] + [[_fmt(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(cells[0], widths, strict=True)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.rjust(w) if i else c.ljust(w)
                        for i, (c, w) in enumerate(zip(row, widths, strict=True)))
              for row in cells[1:]]
    return "\n".join(lines)


def render_json(figures: Mapping[str, Any]) -> str:
    return json.dumps(figures, indent=2, sort_keys=False)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 100 else f"{value:.1f}"
    return str(value)
