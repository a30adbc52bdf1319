"""What a change between two versions does to the obligations: each obligation of the old
version a substantive change removed or altered, each one it added, and the ones only
renumbered or edited for form (which keep the officer's decisions on them).

An obligation belongs to a change when its sentence is word for word (spacing aside) inside
the change's old or new text: both come from the same two texts, so no guessing at which rule
a change touches. Within one change, the old and new obligations pair by their words (Dice);
a pair whose sentence is unchanged is no impact at all (the paragraph changed elsewhere), one
whose sentence differs only by its rule number is renumbered, and the rest are altered."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from regintel.changes.models import Change, ChangeReport
from regintel.changes.provisions import comparable
from regintel.changes.similarity import contained, dice
from regintel.domain.coverage import ObligationRow, obligation_key

ImpactKind = Literal["added", "removed", "altered", "renumbered", "editorial"]
IMPACT_KINDS: tuple[ImpactKind, ...] = ("altered", "removed", "added", "renumbered",
                                        "editorial")
# Two sentences of one change are the same obligation reworded when at least this share of
# their words is common; below it, one was removed and another added.
PAIRED = 0.5
# A sentence split in two, or two joined (a full stop added or lost): the piece's words are
# nearly all in the whole. The piece pairs with the whole even when the whole is paired too.
PIECE = 0.8


class ObligationSide(BaseModel):
    """One version's obligation, as the register and the review decisions know it."""

    key: str = Field(description="domain.coverage.obligation_key: what decisions rest on.")
    rule: str | None = None
    section: str | None = None
    text: str


class ObligationImpact(BaseModel):
    kind: ImpactKind
    change: int | None = Field(description="The change's index in the report; None for an "
                               "obligation only renumbered with its section.")
    provision: str = Field(description="The provision as the new version cites it (the old "
                           "where it was deleted).")
    summary: str = Field(description="The change's one sentence.")
    old: ObligationSide | None = None
    new: ObligationSide | None = None

    @property
    def reopens(self) -> bool:
        """Whether a decision on the old obligation no longer stands."""
        return self.kind in ("altered", "removed")


def _side(row: ObligationRow) -> ObligationSide:
    return ObligationSide(key=obligation_key(row), rule=row.rule, section=row.section,
                          text=row.text)


def _flat(text: str) -> str:
    return " ".join(text.split())


class _Placed:
    """One version's obligations placed in its text, so that a change is known to touch an
    obligation when their places overlap: a sentence wrapped over two lines that a reader of
    provisions takes for two paragraphs is still one obligation, touched by a change to
    either line. Without the text, an obligation is touched when its sentence is inside the
    change's words."""

    def __init__(self, rows: Sequence[ObligationRow], text: str | None) -> None:
        self.rows = rows
        self.text = _flat(text) if text else None
        self.spans: list[tuple[int, int] | None] = []
        self._after = 0
        at = 0
        for row in rows:
            said = _flat(row.text)
            found = self._find(said, at)
            self.spans.append(None if found < 0 else (found, found + len(said)))
            at = max(at, found)

    def _find(self, said: str, at: int) -> int:
        if self.text is None or not said:
            return -1
        found = self.text.find(said, at)
        return found if found >= 0 else self.text.find(said)

    def touched(self, quote: str | None) -> list[ObligationRow]:
        if not quote:
            return []
        if self.text is None:
            said = _flat(quote)
            return [row for row in self.rows if _flat(row.text) in said]
        places: list[tuple[int, int]] = []
        for part in [quote, *quote.splitlines()] if "\n" in quote else [quote]:
            said = _flat(part)
            found = self._find(said, self._after)
            if found >= 0:
                places.append((found, found + len(said)))
                if part is quote:
                    break  # the whole quote is placed; its lines are inside it
        if places:
            self._after = places[0][0]
        return [row for row, span in zip(self.rows, self.spans, strict=True)
                if span is not None and any(a < span[1] and span[0] < b for a, b in places)]


def _pairs(old: list[ObligationRow], new: list[ObligationRow]
           ) -> list[tuple[ObligationRow | None, ObligationRow | None]]:
    """Old and new obligations of one change paired greedily, most alike first."""
    scored = sorted(((dice(a.text, b.text), i, j) for i, a in enumerate(old)
                     for j, b in enumerate(new)), reverse=True)
    taken_old: set[int] = set()
    taken_new: set[int] = set()
    pairs: list[tuple[ObligationRow | None, ObligationRow | None]] = []
    for score, i, j in scored:
        if score < PAIRED or i in taken_old or j in taken_new:
            continue
        taken_old.add(i)
        taken_new.add(j)
        pairs.append((old[i], new[j]))
    for i, a in enumerate(old):
        if i not in taken_old:
            whole = _whole_of(a, new)
            pairs.append((a, whole))
    for j, b in enumerate(new):
        if j not in taken_new:
            pairs.append((_whole_of(b, old), b))
    return pairs


def _whole_of(piece: ObligationRow, others: Sequence[ObligationRow]) -> ObligationRow | None:
    """The sentence of the other version that holds ``piece`` or is held by it, if any."""
    best = max(others, default=None, key=lambda o: max(contained(piece.text, o.text),
                                                        contained(o.text, piece.text)))
    if best is None or max(contained(piece.text, best.text),
                           contained(best.text, piece.text)) < PIECE:
        return None
    return best


def _kind(change: Change, old: ObligationRow | None, new: ObligationRow | None
          ) -> ImpactKind | None:
    if not change.substantive:  # spacing, punctuation, a cross-reference: decisions stand
        return "editorial"
    if old is None:
        return "added"
    if new is None:
        return "removed"
    if comparable(old.text) == comparable(new.text):
        same_rule = comparable(old.rule or "").lower() == comparable(new.rule or "").lower()
        return None if same_rule else "renumbered"
    return "altered"


def obligation_impact(report: ChangeReport, old_rows: Sequence[ObligationRow],
                      new_rows: Sequence[ObligationRow], old_text: str | None = None,
                      new_text: str | None = None) -> list[ObligationImpact]:
    """The obligations each change of ``report`` touches, in the report's order. An
    obligation inside two changes (a section moved, then a paragraph of it amended) counts
    once, with the change that alters it most: altered or removed before renumbered. With
    the two texts the report was made from, obligations and changes meet by their places in
    them (see ``_Placed``)."""
    found: dict[tuple[str | None, str | None], ObligationImpact] = {}
    old_places, new_places = _Placed(old_rows, old_text), _Placed(new_rows, new_text)
    for index, change in enumerate(report.changes):
        olds, news = old_places.touched(change.old_quote), new_places.touched(change.new_quote)
        for old, new in _pairs(olds, news):
            kind = _kind(change, old, new)
            if kind is None:
                continue
            impact = ObligationImpact(
                kind=kind, change=index, summary=change.summary,
                provision=change.new_provision or change.old_provision or change.section,
                old=_side(old) if old else None, new=_side(new) if new else None)
            key = (impact.old.key if impact.old else None,
                   impact.new.key if impact.new else None)
            standing = found.get(key)
            if standing is None or IMPACT_KINDS.index(kind) < IMPACT_KINDS.index(standing.kind):
                found[key] = impact
    found.update(_renumbered_with_section(old_rows, new_rows, found))
    return sorted(found.values(), key=lambda i: (i.change is None, i.change or 0,
                                                 IMPACT_KINDS.index(i.kind)))


def _renumbered_with_section(old_rows: Sequence[ObligationRow], new_rows: Sequence[ObligationRow],
                             found: dict[tuple[str | None, str | None], ObligationImpact]
                             ) -> dict[tuple[str | None, str | None], ObligationImpact]:
    """Obligations no change touched whose rule number changed all the same: a section
    renumbered or moved keeps its paragraphs' words, and the report names only the section."""
    seen_old = {k[0] for k in found if k[0]}
    seen_new = {k[1] for k in found if k[1]}
    by_text: dict[str, list[ObligationRow]] = {}
    for row in new_rows:
        if obligation_key(row) not in seen_new:
            by_text.setdefault(comparable(row.text), []).append(row)
    moved: dict[tuple[str | None, str | None], ObligationImpact] = {}
    for row in old_rows:
        key = obligation_key(row)
        if key in seen_old:
            continue
        twins = by_text.get(comparable(row.text))
        if not twins:
            continue
        new = twins.pop(0)
        if comparable(row.rule or "").lower() == comparable(new.rule or "").lower():
            continue
        impact = ObligationImpact(kind="renumbered", change=None, provision=new.rule or "",
                                  summary=f"{row.rule} renumbered {new.rule}; its text is "
                                          "unchanged.", old=_side(row), new=_side(new))
        moved[(key, obligation_key(new))] = impact
    return moved
