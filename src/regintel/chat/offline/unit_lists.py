"""A document's lists as units: each list's lead-in, items and closing words grouped into one
unit (a rule is matched as a whole), the part of a grouped list that says something, and what
to quote for an item so that the quote says what the item is for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from regintel.chat.evidence import normalise
from regintel.chat.offline.segments import Unit
from regintel.domain.chat import MAX_QUOTE_CHARS


def group_lists(units: Sequence[Unit]) -> list[Unit]:
    """Each list as one unit - its lead-in ("… must:"), items and closing words - so that a
    rule is matched as a whole ("must report semi-annually … on: (a) … (f) …"); other units
    as they are. A list is cut at a page break (a unit quotes one page)."""
    out: list[Unit] = []
    group: list[Unit] = []

    def close() -> None:
        if len(group) > 1:
            out.append(_merged(group))
        else:
            out.extend(group)
        group.clear()

    for unit in units:
        lead = group[0] if group else None
        if lead is not None and unit.page == lead.page and unit.stem and \
                (unit.stem.startswith(lead.body) or unit.stem.endswith(lead.body)):
            group.append(unit)
            continue
        close()
        if unit.body.endswith(":") and not unit.stem:
            group.append(unit)
        else:
            out.append(unit)
    close()
    return out


def _merged(group: Sequence[Unit]) -> Unit:
    lead = group[0]
    return Unit(lead.document_id, lead.page, lead.start, group[-1].end,
                " ".join(u.text for u in group), " ".join(u.body for u in group), lead.clause,
                "", lead.chapter, lead.section, lead.guidance, tuple(group))


# A list item shorter than this ("(i) the Source of Funds; and") says nothing on its own.
STANDALONE_CHARS = 60


def part_saying(unit: Unit, phrase: str) -> Unit:
    """The part of a grouped list that holds ``phrase`` (the item with "USD15,000"), or the
    unit itself."""
    needle = phrase.lower()
    return next((p for p in unit.parts if needle and needle in p.body.lower()), unit)


def in_its_list(part: Unit, group: Unit) -> Unit:
    """What to quote for a part of a list, so that the quote says what the item is for: the
    item read from the nearest lead-in above it when the two fit one quote ("(c) identify
    and verify: (i) the Source of Funds; and"); the list from its start when the item cannot
    stand alone (a short item, or the closing words "that a Person is engaged in …"); else
    the item."""
    if part is group or part not in group.parts[1:]:
        return part
    at = group.parts.index(part)
    lead = next((k for k in range(at - 1, -1, -1)
                 if group.parts[k].body.rstrip().endswith(":")), None)
    if lead is not None:
        span = group.parts[lead:at + 1]
        if len(normalise(" ".join(p.text for p in span))) <= MAX_QUOTE_CHARS:
            return replace(part, start=span[0].start, text=" ".join(p.text for p in span),
                           body=" ".join(p.body for p in span), stem="", parts=())
    if len(part.body) < STANDALONE_CHARS or part.text == part.body:  # no marker: closing
        return group
    return part
