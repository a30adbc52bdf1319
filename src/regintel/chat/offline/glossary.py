"""What a regulation's own glossary says a policy's abbreviations stand for. A policy calls
the regulator by its initials ("Dealing with the FSRA"); the AML rulebook never does: it
says "the Regulator", defined as "the ADGM Financial Services Regulatory Authority". The
initials of a name a definition spells out lead to the defined term, so a search for the
policy's heading finds the rules about the Regulator."""

from __future__ import annotations

import re
from collections.abc import Iterable

# "Regulator \tMeans the ADGM Financial Services Regulatory Authority." (one entry a line)
_ENTRY = re.compile(r"^(?P<term>[A-Z][\w'’/&() -]{0,60}?)\s+Means\s+(?P<definition>.+)$",
                    re.M)
# A name spelled out: two or more capitalised words ("Financial Services Regulatory
# Authority"), short joining words allowed inside ("Board of Directors").
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:of|and|for|the)?\s*[A-Z][a-z]+)+")
_SMALL = frozenset({"of", "and", "for", "the"})
MIN_INITIALS = 3  # "AB" is too often something else


def acronyms(texts: Iterable[str]) -> dict[str, str]:
    """Initials → the defined term whose definition spells the name out, from the glossary
    entries in ``texts``. A term that gives its own initials ("Money Laundering Reporting
    Officer (MLRO)") needs none; initials that two terms would claim are left out."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for entry in _ENTRY.finditer(text):
            term = " ".join(entry["term"].split())
            if "(" in term:
                continue
            # The definition must be the name itself ("Means the ADGM Financial Services
            # Regulatory Authority"), not a name it mentions on the way.
            name = _NAME.search(entry["definition"])
            if name is None or len(entry["definition"][:name.start()].split()) > 2:
                continue
            initials = "".join(w[0] for w in name[0].split() if w not in _SMALL)
            if len(initials) >= MIN_INITIALS and initials != term:
                found.setdefault(initials, set()).add(term)
    return {initials: next(iter(terms)) for initials, terms in found.items()
            if len(terms) == 1}


def expand(query: str, aliases: dict[str, str]) -> str:
    """``query`` with each known set of initials replaced by the term it stands for."""
    if not aliases:
        return query
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, aliases)) + r")\b")
    return pattern.sub(lambda m: aliases[m[1]], query)
