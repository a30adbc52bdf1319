"""The change report: each aligned pair that differs becomes one typed change, with its kind,
substantive or editorial, a word-level redline, the facts it changed and one sentence.

A section inserted, deleted, split or merged is one change (its paragraphs are in its
quotes), not one per paragraph: that is how an amending notice says it and how a reader
wants it. A section renumbered or moved is one change for the move, and its amended
paragraphs are changes of their own."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from regintel.changes.align import Alignment, ParagraphPair, UnitPair, align, shape
from regintel.changes.models import (
    CHANGE_KINDS,
    Change,
    ChangeKind,
    ChangeLevel,
    ChangeReport,
    TocEntry,
)
from regintel.changes.provisions import Paragraph, Unit, Version, comparable, read_version
from regintel.changes.redline import RedlineOp, editorial_kind, redline_ops, redline_text
from regintel.changes.summary import facts_changed, quote_words, summary_of_facts


def _text(paragraphs: Sequence[Paragraph]) -> str:
    return "\n".join(p.text for p in paragraphs)


def _body(paragraphs: Sequence[Paragraph]) -> str:
    return "\n".join(p.body for p in paragraphs)


def _joined(labels: Sequence[str]) -> str | None:
    return " + ".join(labels) or None


def _where(old: Unit | None, new: Unit | None) -> tuple[str, list[str]]:
    unit = new or old
    assert unit is not None
    return unit.label, list(unit.divisions)


def _change(kind: ChangeKind, level: ChangeLevel, old_labels: list[str], new_labels: list[str],
            old_quote: str | None, new_quote: str | None, where: tuple[str, list[str]],
            old_body: str = "", new_body: str = "", lead: str = "") -> Change:
    """A change with its redline, editorial verdict, facts and summary worked out from the two
    texts. ``lead`` opens the summary when the kind itself is news ("§ 5 renumbered § 6")."""
    editorial = editorial_kind(old_body, new_body) if old_body and new_body else None
    changed_text = comparable(old_body) != comparable(new_body)
    if kind in ("renumbered", "moved") and not changed_text:
        verdict = "renumbering"
    elif kind in ("inserted", "deleted"):
        verdict = None
    else:
        verdict = editorial
    substantive = verdict is None and (changed_text or kind in ("inserted", "deleted"))
    ops = redline_ops(old_quote or "", new_quote or "") if old_quote and new_quote and \
        changed_text else []
    facts = facts_changed(old_body, new_body) if substantive else []
    said = summary_of_facts(facts, new_body)
    if kind in ("inserted", "deleted"):
        lead = _plain_summary(kind, old_labels, new_labels, old_body, new_body, verdict, ops)
        lead = lead.removesuffix(".")
    elif kind in ("split", "merged"):
        lead = f"{'Splits' if kind == 'split' else 'Merges'} {' + '.join(old_labels)} into " \
            f"{' + '.join(new_labels)}"
    if said is None:  # in words of the texts, their markers aside
        said = _plain_summary(kind, old_labels, new_labels, old_body, new_body, verdict,
                              redline_ops(old_body, new_body) if changed_text else [])
    elif lead:
        said = f"{lead}; {said[0].lower()}{said[1:]}"
    section, divisions = where
    return Change(kind=kind, level=level, substantive=substantive,
                  editorial=verdict if not substantive else None,
                  old_provision=_joined(old_labels), new_provision=_joined(new_labels),
                  old_provisions=old_labels, new_provisions=new_labels, section=section,
                  divisions=divisions, summary=said, facts_changed=facts, old_quote=old_quote,
                  new_quote=new_quote, redline=redline_text(ops) if ops else None,
                  redline_ops=ops)


def _plain_summary(kind: ChangeKind, old: list[str], new: list[str], old_body: str,
                   new_body: str, verdict: str | None, ops: list[RedlineOp]) -> str:
    """The summary when no typed fact changed: what happened, then the words that did."""
    o, n = " + ".join(old), " + ".join(new)
    if kind == "inserted":
        return f"Inserts {n}: “{quote_words(new_body)}”." if new_body else f"Inserts {n}."
    if kind == "deleted":
        return f"Deletes {o}: “{quote_words(old_body)}”." if old_body else f"Deletes {o}."
    lead = {"renumbered": f"{o} renumbered {n}", "moved": f"{o} moved to {n}",
            "amended": f"Amends {n}", "split": f"Splits {o} into {n}",
            "merged": f"Merges {o} into {n}"}[kind]
    if verdict == "renumbering":
        return f"{lead}; its text is unchanged."
    if verdict is not None:
        return f"{lead}: editorial ({verdict} only)."
    hunks: list[tuple[str, str]] = []  # (removed, added) of each run of edits
    for op, prev in zip(ops, [None, *ops[:-1]], strict=False):
        if op.op == "equal":
            continue
        if prev is None or prev.op == "equal" or not hunks:
            hunks.append(("", ""))
        removed, added = hunks[-1]
        hunks[-1] = (removed + op.text, added) if op.op == "delete" else (removed,
                                                                             added + op.text)
    hunks = [h for h in hunks if h[0].strip() or h[1].strip()]  # spacing aside
    if not hunks:
        return f"{lead}."
    removed, added = (h.strip() for h in hunks[0])
    more = f", and {len(hunks) - 1} more edit{'s' if len(hunks) > 2 else ''}" \
        if len(hunks) > 1 else ""
    if removed and added:
        return f"{lead}: “{quote_words(removed)}” became “{quote_words(added)}”{more}."
    if added:
        return f"{lead}: adds “{quote_words(added)}”{more}."
    return f"{lead}: removes “{quote_words(removed)}”{more}."


def _level(unit: Unit) -> Literal["division", "section"]:
    return "division" if unit.kind == "division" else "section"


def _unit_changes(pair: UnitPair) -> list[Change]:
    if pair.relation == "inserted":
        v = pair.new[0]
        return [_change("inserted", _level(v), [], [v.label], None, v.text, _where(None, v),
                        new_body=_unit_body(v))]
    if pair.relation == "deleted":
        u = pair.old[0]
        return [_change("deleted", _level(u), [u.label], [], u.text, None, _where(u, None),
                        old_body=_unit_body(u))]
    if pair.relation == "split" or pair.relation == "merged":
        moved_old = [p for m in pair.paragraphs for p in m.old]
        olds = [u.label for u in pair.old]
        news = [v.label for v in pair.new]
        old_text = _text(moved_old) if pair.relation == "split" else "\n".join(
            u.text for u in pair.old[1:])
        new_text = pair.new[-1].text if pair.relation == "split" else _text(
            [p for m in pair.paragraphs for p in m.new])  # the new section; what came in
        moved_new = [p for m in pair.paragraphs for p in m.new]
        return [_change(pair.relation, "section", olds, news, old_text, new_text,
                        _where(pair.old[0], pair.new[0]), old_body=_body(moved_old),
                        new_body=_body(moved_new))]
    u, v = pair.old[0], pair.new[0]
    found: list[Change] = []
    level = _level(u)
    renumbered = comparable(u.label).lower() != comparable(v.label).lower()
    if pair.relation == "moved" or renumbered:
        kind: ChangeKind = "moved" if pair.relation == "moved" else "renumbered"
        found.append(_change(kind, level, [u.label], [v.label], u.line, v.line, _where(u, v),
                             old_body=u.heading or u.label, new_body=v.heading or v.label,
                             lead=f"{u.label} {'moved to' if kind == 'moved' else 'renumbered'}"
                                  f" {v.label}"))
    elif comparable(u.line) != comparable(v.line):
        found.append(_change("amended", level, [u.label], [v.label], u.line, v.line,
                             _where(u, v), old_body=u.line, new_body=v.line))
    renumbered_to = {p.old[0].segments: p.new[0].segments for p in pair.paragraphs
                     if p.relation == "same" and shape(p.old[0]) != shape(p.new[0])}
    found += [c for p in _in_new_order(pair.paragraphs, u)
              if (c := paragraph_change(p, renumbered_to)) is not None]
    return found


def _in_new_order(pairs: list[ParagraphPair], old_unit: Unit) -> list[ParagraphPair]:
    """Paragraph pairs as the new text runs; a deleted one after the one before it."""
    where = {p.old[0].index: p.new[0].index for p in pairs if p.old and p.new}
    last, place = -1.0, {}
    for paragraph in old_unit.paragraphs:
        last = where.get(paragraph.index, last)
        place[paragraph.index] = where.get(paragraph.index, last + 0.5)
    return sorted(pairs, key=lambda p: p.new[0].index if p.new else place[p.old[0].index])


def _unit_body(unit: Unit) -> str:
    return "\n".join([unit.heading, _body(unit.paragraphs)]).strip()


def paragraph_change(pair: ParagraphPair,
                     renumbered_to: dict[tuple[str, ...], tuple[str, ...]] | None = None
                     ) -> Change | None:
    """The change a paragraph pair is, or None when it is the same paragraph unchanged. A
    paragraph whose parent was renumbered ((c)(1) under (c) that became (d)) is not
    renumbered on its own account (``renumbered_to``: the unit's renumberings)."""
    olds, news = [p.label for p in pair.old], [p.label for p in pair.new]
    where = _where(pair.old_unit, pair.new_unit)
    old_body, new_body = _body(pair.old), _body(pair.new)
    old_quote, new_quote = (_text(pair.old) or None), (_text(pair.new) or None)
    if pair.relation in ("inserted", "deleted", "split", "merged", "moved"):
        kind: ChangeKind = pair.relation
        lead = f"{olds[0]} moved to {news[0]}" if kind == "moved" else ""
        return _change(kind, "paragraph", olds, news, old_quote, new_quote, where,
                       old_body=old_body, new_body=new_body, lead=lead)
    a, b = pair.old[0], pair.new[0]
    inherited = a.segments[-1:] == b.segments[-1:] and \
        (renumbered_to or {}).get(a.parent) == b.parent
    renumbered = shape(a) != shape(b) and not inherited
    if not renumbered and comparable(a.body) == comparable(b.body):
        return None
    kind = "renumbered" if renumbered else "amended"
    return _change(kind, "paragraph", olds, news, old_quote, new_quote, where,
                   old_body=old_body, new_body=new_body,
                   lead=f"{a.label} renumbered {b.label}" if renumbered else "")


def _ordered(alignment: Alignment) -> list[UnitPair]:
    """Unit pairs in the new version's order; a deleted unit after the one before it."""
    position: dict[int, float] = {}
    for pair in alignment.units:
        for u in pair.old:
            if pair.new:
                position[id(u)] = pair.new[0].index
    last = -1.0
    keys: dict[int, float] = {}
    for u in alignment.old.units:
        if id(u) in position:
            last = position[id(u)]
        keys[id(u)] = position.get(id(u), last + 0.5)

    def key(pair: UnitPair) -> float:
        return pair.new[0].index if pair.new else keys[id(pair.old[0])]

    return sorted(alignment.units, key=key)


def _toc(changes: list[Change], alignment: Alignment) -> list[TocEntry]:
    headings = {u.label: u.heading for version in (alignment.old, alignment.new)
                for u in version.units}
    Key = tuple[Literal["division", "section"], str]
    entries: dict[Key, list[Change]] = {}
    depth: dict[Key, int] = {}
    for change in changes:
        for d, label in enumerate(change.divisions):
            entries.setdefault(("division", label), []).append(change)
            depth["division", label] = d
        level: Literal["division", "section"] = (
            "division" if change.level == "division" else "section")
        entries.setdefault((level, change.section), []).append(change)
        depth[level, change.section] = len(change.divisions)
    return [TocEntry(label=label, heading=headings.get(label, ""), level=level,
                     depth=depth[level, label], changes=len(found),
                     substantive=sum(c.substantive for c in found),
                     editorial=sum(not c.substantive for c in found),
                     kinds=dict(Counter(c.kind for c in found)))
            for (level, label), found in entries.items()]


def build_report(alignment: Alignment, old_name: str = "old", new_name: str = "new",
                 seconds: float = 0.0) -> ChangeReport:
    changes: list[Change] = []
    for pair in _ordered(alignment):
        changes += _unit_changes(pair)
    changes += [c for p in alignment.moved if (c := paragraph_change(p)) is not None]
    counts = Counter(c.kind for c in changes)
    tallies: dict[str, int] = {kind: counts.get(kind, 0) for kind in CHANGE_KINDS}
    tallies |= {"substantive": sum(c.substantive for c in changes),
                "editorial": sum(not c.substantive for c in changes), "total": len(changes)}
    return ChangeReport(old_name=old_name, new_name=new_name, changes=changes,
                        toc=_toc(changes, alignment), counts=tallies, seconds=round(seconds, 3))


def compare_versions(old: Version, new: Version, old_name: str = "old",
                     new_name: str = "new") -> ChangeReport:
    """The change report of two versions already read."""
    return build_report(align(old, new), old_name, new_name)


# The version of the alignment and the report's form: stored reports (changes/versions.py)
# made by another are made again when read. Raise it with any change to either.
REPORT_VERSION = 1


def compare_texts(old: str, new: str, old_name: str = "old",
                  new_name: str = "new") -> ChangeReport:
    """The change report of two versions' plain texts (``seconds``: reading, aligning and
    reporting)."""
    started = time.perf_counter()
    report = compare_versions(read_version(old), read_version(new), old_name, new_name)
    report.seconds = round(time.perf_counter() - started, 3)
    return report
