"""``regintel bench changes``: the change report against eRegs' record of each amendment
(``../shared/data/versions/atf``: five parts, a record for each pair of consecutive versions;
30 record files, where its README says 29).

Two ways: ``run`` reads each pair's two text files and compares them here (the report's own
time: read, align, report); ``run_library`` ingests each part's versions into the library as
one document's versions and reads each pair's report as the product serves it (prepared by
the ingestion's follow-up), timed as served, scored on the versions' stored text.

How eRegs' labels are read (``part-section[-paragraph…]``):
- a section "478-124a" is our "§ 478.124a"; "479-Subjgrp" (eRegs' "subject group", printed
  as a "Subpart XyZ—…" heading) is any change to such a division heading;
- a marker step ("c", "1", "iv", "A") is the paragraph with that marker under the one before;
- "p<hash>" is eRegs' hash of an unlabelled paragraph's opening term (sha1 of its letters,
  first 8 hex digits; for a "Category VII—…" heading, of its numeral): the unlabelled
  paragraph there that hashes to it;
- "p<n>" (n < 1000) numbers eRegs' own cut of unlabelled text by position (a table's rows, a
  quoted statute, flush text after a list, worked examples), which plain text does not
  share. All such labels under one labelled paragraph (or one section) count as ONE record
  change of that scope, found when we report a change in its stretch of text (the paragraph
  and what follows it up to the next labelled paragraph outside it: eRegs puts flush text
  after a list under the last item, we under the list): neither eRegs' row count nor ours
  inflates the figure. The figures say how many labels were grouped so.

Paragraph recall: a record change is found when a change of ours touches its paragraph (a
paragraph change names it, or a section inserted, deleted, split or merged contains it); a
label that does not resolve in our reading of the text is not found.
Editorial share: of the record's "modified" paragraphs whose two texts differ only in
whitespace or punctuation, the share our report calls editorial (not substantive)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from regintel.changes.models import Change, ChangeReport
from regintel.changes.provisions import Paragraph, Unit, Version, comparable, read_version
from regintel.changes.report import compare_versions
from regintel.domain.documents import DocStatus, DocType
from regintel.errors import InvalidRequest
from regintel.obligations.review_state import policy_text

if TYPE_CHECKING:
    from regintel.container import Container

Figures = dict[str, Any]
Node = tuple[str, str, tuple[str, ...]]  # (side, unit label, segments); segments () = the unit
LIBRARY_TENANT = "bench-changes"
INGEST_TIMEOUT_S = 900
_SUBJECT_GROUP = re.compile(r"[A-Z]\Z")
_CATEGORY = re.compile(r"categor(?:y|ies) ([ivx]+)", re.IGNORECASE)


def _sha(text: str) -> int:
    letters = re.sub(r"[^a-z]", "", text.lower()).encode()
    return int(hashlib.sha1(letters, usedforsecurity=False).hexdigest()[:8], 16)


def term_hashes(text: str) -> set[int]:
    """eRegs' keys of an unlabelled paragraph: the hash of its opening term (sha1 of its
    letters, first 8 hex digits), and for a heading "Category VII—…" of a list that eRegs
    reads as an import category, the hash of its numeral."""
    keys = {_sha(text.split(".")[0])}
    category = _CATEGORY.match(text)
    if category:
        keys.add(_sha(category[1]))
    return keys


def section_id(part: str, unit: Unit) -> str:
    """Our unit as eRegs names a section: "§ 478.124a" → "478-124a"."""
    if unit.kind == "division":
        if unit.label.lower().startswith("part"):
            return part
        return f"{part}-Subpart-{unit.number}" if _SUBJECT_GROUP.match(unit.number) else \
            f"{part}-Subjgrp"
    number = unit.number
    return f"{part}-{number.split('.', 1)[1]}" if number.startswith(f"{part}.") else \
        number.replace(".", "-")


@dataclass
class _Side:
    version: Version
    name: str  # "old" or "new"
    by_label: dict[str, tuple[Unit, Paragraph | None]] = field(default_factory=dict)
    by_section: dict[str, Unit] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for unit in self.version.units:
            self.by_label[unit.label] = (unit, None)
            for p in unit.paragraphs:
                self.by_label[p.label] = (unit, p)


def _touched(change: Change, old: _Side, new: _Side) -> set[Node]:
    """The provisions a change touches; a whole section for one inserted, deleted, split or
    merged (its paragraphs are in the change's quotes)."""
    whole = change.kind in ("inserted", "deleted", "split", "merged") and \
        change.level != "paragraph"
    nodes: set[Node] = set()
    for side, labels in ((old, change.old_provisions), (new, change.new_provisions)):
        for label in labels:
            unit, paragraph = side.by_label.get(label, (None, None))
            if unit is None:
                continue
            if paragraph is not None:
                nodes.add((side.name, unit.label, paragraph.segments))
                continue
            nodes.add((side.name, unit.label, ()))
            if whole:
                nodes.update((side.name, unit.label, p.segments) for p in unit.paragraphs)
    return nodes


def _resolve(unit: Unit, steps: list[str]) -> tuple[tuple[str, ...], bool]:
    """The segments eRegs' steps lead to in ``unit``, and whether every step resolved."""
    at: tuple[str, ...] = ()
    for step in steps:
        children = [p for p in unit.paragraphs if p.segments[:-1] == at]
        hashed = re.fullmatch(r"p(\d+)", step)
        if hashed:
            found = next((p for p in children if p.marker is None and
                          int(hashed[1]) in term_hashes(p.body)), None)
        else:
            found = next((p for p in children if p.segments[-1] == f"({step})" or
                          p.segments[-1].startswith(f"({step})-")), None)
        if found is None:
            return at, False
        at = found.segments
    return at, True


def _span(unit: Unit, scope: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The paragraphs a scope covers in the text: its own and the ones after it up to the
    next labelled paragraph outside it (flush text after a list item is the item's in eRegs'
    reading, its list's in ours); the whole section for the section."""
    if not scope:
        return [(), *(p.segments for p in unit.paragraphs)]
    start = next((k for k, p in enumerate(unit.paragraphs) if p.segments == scope), None)
    if start is None:
        return []
    covered = [scope]
    for p in unit.paragraphs[start + 1:]:
        if p.marker is not None and p.segments[:len(scope)] != scope:
            break
        covered.append(p.segments)
    return covered


@dataclass
class PairScore:
    sections_tp: int = 0
    sections_fp: int = 0
    sections_fn: int = 0
    labels: int = 0  # record changes; a scope's positional labels count as one
    labels_found: int = 0
    grouped_labels: int = 0
    editorial_record: int = 0
    editorial_found: int = 0
    unchanged_modified: int = 0
    seconds: float = 0.0
    missed: list[str] = field(default_factory=list)
    extra_sections: list[str] = field(default_factory=list)
    editorial_missed: list[str] = field(default_factory=list)


def _unit_text(unit: Unit) -> str:
    root = [p.body for p in unit.paragraphs if len(p.segments) == 1 and p.marker is None]
    return "\n".join([unit.heading, *root])


def _text_at(side: _Side, node: Node) -> str:
    unit = side.by_label[node[1]][0]
    if not node[2]:
        return _unit_text(unit)
    return next((p.body for p in unit.paragraphs if p.segments == node[2]), "")


def _positional(steps: list[str]) -> int | None:
    return next((k for k, step in enumerate(steps) if k >= 2 and
                 re.fullmatch(r"p\d{1,3}", step)), None)


def score_pair(record: Figures, old_text: str, new_text: str,
               stored: tuple[ChangeReport, float] | None = None
               ) -> tuple[PairScore, ChangeReport]:
    """The pair's report scored against its record: made here from the two texts, or
    ``stored`` (the library's report of the two versions and the seconds it took to get)."""
    part = record["part"]
    started = time.perf_counter()
    old_version, new_version = read_version(old_text), read_version(new_text)
    if stored is None:
        report = compare_versions(old_version, new_version, record["from"], record["to"])
        score = PairScore(seconds=time.perf_counter() - started)
    else:
        report, seconds = stored
        score = PairScore(seconds=seconds)
    old, new = _Side(old_version, "old"), _Side(new_version, "new")
    for side in (old, new):
        side.by_section = {section_id(part, u): u for u in side.version.units}
    touched = [_touched(c, old, new) for c in report.changes]
    ours: set[str] = set()
    for nodes in touched:
        for side_name, unit_label, _ in nodes:
            side = old if side_name == "old" else new
            ours.add(section_id(part, side.by_label[unit_label][0]))
    recorded = set(record["sections_changed"])
    score.sections_tp = len(ours & recorded)
    score.sections_fp = len(ours - recorded)
    score.sections_fn = len(recorded - ours)
    score.extra_sections = sorted(ours - recorded)
    all_touched = {n for nodes in touched for n in nodes}
    groups: dict[tuple[str, tuple[str, ...]], set[str]] = defaultdict(set)
    for label, status in sorted(record["changed"].items()):
        steps = label.split("-")
        section = "-".join(steps[:2])
        if steps[1] == "Subjgrp":
            score.labels += 1
            score.labels_found += section in ours
            continue
        cut = _positional(steps)
        if cut is not None:
            groups[section, tuple(steps[2:cut])].add(status)
            score.grouped_labels += 1
            continue
        score.labels += 1
        sides = [old] if status == "deleted" else [new] if status == "added" else [old, new]
        targets: list[Node] = []
        for side in sides:
            unit = side.by_section.get(section)
            segments, exact = _resolve(unit, steps[2:]) if unit else ((), False)
            if unit is not None and exact:
                targets.append((side.name, unit.label, segments))
        if _found(targets, all_touched):
            score.labels_found += 1
        else:
            score.missed.append(f"{label}:{status}")
        if status == "modified" and len(targets) == 2:
            _editorial([_text_at(old, targets[0]), _text_at(new, targets[1])], set(targets),
                       report, touched, score)
    for (section, steps), statuses in sorted(groups.items()):
        score.labels += 1
        spans = {(side.name, unit.label, segments) for side in (old, new)
                 if (unit := side.by_section.get(section))
                 for segments in _span(unit, _resolve(unit, list(steps))[0])}
        if spans & all_touched:
            score.labels_found += 1
        else:
            score.missed.append(f"{section}{''.join('-' + s for s in steps)}-p<n>:"
                                f"{'/'.join(sorted(statuses))}")
    return score, report


def _hits(node: Node, touched: set[Node]) -> bool:
    """A change touches the paragraph; for a section's own text (eRegs puts a section's
    unlabelled text in the section itself), the section or its top-level unlabelled
    paragraphs."""
    return node in touched or (not node[2] and any(
        n[:2] == node[:2] and len(n[2]) == 1 and n[2][0].startswith("¶") for n in touched))


def _found(targets: list[Node], touched: set[Node]) -> bool:
    return any(_hits(node, touched) for node in targets)


def _editorial(texts: list[str], targets: set[Node], report: ChangeReport,
               touched: list[set[Node]], score: PairScore) -> None:
    old, new = texts
    if comparable(old) == comparable(new):
        score.unchanged_modified += 1
        return
    if re.sub(r"[\W_]+", "", old) != re.sub(r"[\W_]+", "", new):
        return
    score.editorial_record += 1
    mine = [c for c, t in zip(report.changes, touched, strict=True)
            if any(_hits(node, t) for node in targets)]
    if mine and not any(c.substantive for c in mine):
        score.editorial_found += 1
    else:
        score.editorial_missed.append(" / ".join(c.old_provision or c.new_provision or ""
                                                 for c in mine) or "(no change reported)")


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _summary(scores: list[PairScore]) -> Figures:
    total = PairScore()
    for s in scores:
        for name in ("sections_tp", "sections_fp", "sections_fn", "labels", "labels_found",
                     "grouped_labels", "editorial_record", "editorial_found",
                     "unchanged_modified"):
            setattr(total, name, getattr(total, name) + getattr(s, name))
    seconds = [s.seconds for s in scores]
    return {
        "pairs": len(scores),
        "section_recall": _ratio(total.sections_tp, total.sections_tp + total.sections_fn),
        "section_precision": _ratio(total.sections_tp, total.sections_tp + total.sections_fp),
        "sections_recorded": total.sections_tp + total.sections_fn,
        "sections_reported": total.sections_tp + total.sections_fp,
        "paragraph_recall": _ratio(total.labels_found, total.labels),
        "paragraph_changes": total.labels,
        "positional_labels_grouped": total.grouped_labels,
        "record_modified_with_same_text": total.unchanged_modified,
        "editorial_share": _ratio(total.editorial_found, total.editorial_record),
        "editorial_record_changes": total.editorial_record,
        "seconds_per_pair_mean": round(sum(seconds) / len(seconds), 3) if seconds else None,
        "seconds_per_pair_max": round(max(seconds), 3) if seconds else None,
    }


def records(directory: Path, parts: list[str] | None = None) -> list[tuple[Path, Figures]]:
    found = []
    for path in sorted(directory.glob("*/changes_*.json")):
        if parts and path.parent.name not in parts:
            continue
        found.append((path, json.loads(path.read_text(encoding="utf-8"))))
    return found


def run(directory: Path, parts: list[str] | None = None) -> Figures:
    """Each pair's two text files read directly and compared here."""
    scored = []
    for path, record in records(directory, parts):
        folder = path.parent
        scored.append((record, *score_pair(
            record, (folder / f"{record['from']}.txt").read_text("utf-8"),
            (folder / f"{record['to']}.txt").read_text("utf-8"))))
    return _figures(directory, scored)


async def run_library(container: Container, directory: Path,
                      parts: list[str] | None = None) -> Figures:
    """Each part's versions ingested into the library as one document's versions, in the
    order of their effective dates; each pair's report read as the product serves it (the
    one the ingestion's follow-up stored), timed, and scored on the versions' stored text."""
    tenant = await container.documents.ensure_tenant(LIBRARY_TENANT)
    by_part: dict[str, list[Figures]] = defaultdict(list)
    for _, record in records(directory, parts):
        by_part[record["part"]].append(record)
    scored = []
    for part, chain in sorted(by_part.items()):
        chain.sort(key=lambda r: r["effective_from"])
        folder = directory / part
        ids: dict[str, UUID] = {}
        for record in chain:
            for name, effective in ((record["from"], record["effective_from"]),
                                    (record["to"], record["effective_to"])):
                if name not in ids:
                    ids[name] = await _ingest(container, tenant, folder / f"{name}.txt",
                                              f"{directory.name} {part}", name,
                                              date.fromisoformat(effective[:10]),
                                              next(iter(ids.values()), None))
        for record in chain:
            old, new = ids[record["from"]], ids[record["to"]]
            started = time.perf_counter()
            report = await container.version_changes.report(tenant, old, new)
            seconds = time.perf_counter() - started
            old_text, new_text = [
                policy_text(await container.chunk_index.document_chunks(tenant, i))
                for i in (old, new)]
            scored.append((record, *score_pair(record, old_text, new_text,
                                               stored=(report, seconds))))
    return _figures(directory, scored)


async def _ingest(container: Container, tenant: UUID, path: Path, title: str, version: str,
                  effective: date, base: UUID | None) -> UUID:
    data = await asyncio.to_thread(path.read_bytes)
    submitted = await container.ingestion.submit(
        tenant, data=data, filename=path.name, title=title,
        doc_type=DocType.REGULATION, version=version, effective_date=effective,
        version_of=str(base) if base is not None else None)
    [document] = await container.ingestion.run_until_done(tenant, [submitted.document.id],
                                                          timeout_s=INGEST_TIMEOUT_S)
    if document.status is not DocStatus.READY:
        raise InvalidRequest(f"{path} did not ingest ({document.status.value})")
    return document.id


def _figures(directory: Path, scored: list[tuple[Figures, PairScore, ChangeReport]]
             ) -> Figures:
    by_part: dict[str, list[PairScore]] = defaultdict(list)
    pairs: list[Figures] = []
    for record, score, report in scored:
        by_part[record["part"]].append(score)
        pairs.append({"part": record["part"], "from": record["from"], "to": record["to"],
                      "seconds": round(score.seconds, 3), "changes": report.counts["total"],
                      "record_changes": score.labels, "missed": score.missed,
                      "sections_not_in_record": score.extra_sections,
                      "editorial_called_substantive": score.editorial_missed})
    return {"dir": str(directory), "parts": sorted(by_part),
            "pooled": _summary([s for scores in by_part.values() for s in scores]),
            "by_part": {part: _summary(scores) for part, scores in sorted(by_part.items())},
            "pairs": pairs}


def table_rows(figures: Figures) -> list[list[Any]]:
    rows = []
    for name, f in [*figures["by_part"].items(), ("pooled", figures["pooled"])]:
        rows.append([name, f["pairs"], f["section_recall"], f["section_precision"],
                     f["paragraph_recall"], f["paragraph_changes"],
                     f["positional_labels_grouped"],
                     f["editorial_share"], f["editorial_record_changes"],
                     f["seconds_per_pair_mean"], f["seconds_per_pair_max"]])
    return rows


TABLE_HEADERS = ["part", "pairs", "section recall", "section precision", "paragraph recall",
                 "record changes", "p<n> labels grouped", "editorial share", "of",
                 "s/pair mean", "s/pair max"]
