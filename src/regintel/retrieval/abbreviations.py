"""Abbreviations practitioners write and regulations spell out ("DPIA", "CDD", "PEPs"): a
question or an email that uses one is read with its expansion beside it, so the search (and
the check of a text against rules) meets the regulation's own words. The list is data
(``data/abbreviations.json``: general regulatory usage, no one regime's), and a document's
own glossary entries (``glossary.acronyms``) or a caller's table can extend or override it."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources

# An abbreviation as written: capitals and digits, an optional plural "s", an inner "&".
_TOKEN = re.compile(r"(?<![\w&])[A-Z][A-Z0-9&]{1,7}s?(?![\w&])")


@cache
def bundled() -> Mapping[str, str]:
    raw = json.loads(resources.files("regintel.retrieval").joinpath(
        "data/abbreviations.json").read_text(encoding="utf-8"))
    return {k: v for k, v in raw.items() if not k.startswith("_")}


def expansions(text: str, table: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """The abbreviations in ``text`` that the table expands and the text does not already
    spell out, once each, in order of appearance."""
    table = bundled() if table is None else table
    low = text.lower()
    out: dict[str, str] = {}
    for found in _TOKEN.finditer(text):
        short = found.group(0)
        long = table.get(short) or (table.get(short[:-1]) if short.endswith("s") else None)
        if long and long.lower() not in low and short not in out:
            out[short] = long
    return list(out.items())


def expand(text: str, table: Mapping[str, str] | None = None, *,
           unless_in: Sequence[str] = ()) -> str:
    """``text`` with the expansions of its abbreviations after it, in brackets: the words
    the user wrote stay first (they still match a text that uses the abbreviation). An
    abbreviation that ``unless_in`` (the passages already found) uses itself is left alone:
    where the regulation writes "CDD" too, spelling it out only pulls the search towards
    passages that define the term."""
    used = " ".join(unless_in)
    found = [(s, long) for s, long in expansions(text, table)
             if not re.search(rf"(?<![\w&]){re.escape(s)}(?![\w&])", used)]
    if not found:
        return text
    return f"{text} ({'; '.join(f'{s}: {long}' for s, long in found)})"
