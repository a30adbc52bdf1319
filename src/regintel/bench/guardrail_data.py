"""Readers for the guardrail data sets (``../shared/data/guardrails``, ObliQA questions)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from regintel.errors import InvalidRequest


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InvalidRequest(f"{path}:{n} is not JSON: {exc.msg}") from exc
    return rows


def read_labelled(path: Path) -> tuple[list[str], list[int]]:
    """A JSONL of ``{"text", "label"}`` (1 = injection)."""
    rows = _jsonl(path)
    try:
        return [str(r["text"]) for r in rows], [int(r["label"]) for r in rows]
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidRequest(f"{path}: every line needs a text and a 0/1 label") from exc


def read_benign(path: Path) -> list[str]:
    """Benign questions: an ObliQA file (a JSON list of objects with ``Question``) or a JSONL
    of ``{"text"}``."""
    raw = path.read_text(encoding="utf-8")
    if raw.lstrip().startswith("["):
        items = json.loads(raw)
        try:
            return [str(item["Question"]) for item in items]
        except (KeyError, TypeError) as exc:
            raise InvalidRequest(f"{path}: expected objects with a Question field") from exc
    try:
        return [str(r["text"]) for r in _jsonl(path)]
    except KeyError as exc:
        raise InvalidRequest(f"{path}: every line needs a text field") from exc


def read_pii(path: Path) -> list[dict[str, Any]]:
    """Presidio-research style: ``{"full_text", "spans": [{"entity_type",
    "start_position", "end_position", …}]}``."""
    items = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(items, list) or not all("full_text" in i and "spans" in i for i in items):
        raise InvalidRequest(f"{path}: expected a list of {{full_text, spans}} objects")
    return list(items)
