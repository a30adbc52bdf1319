"""A focused comparison ("the two rulebooks on how long records must be kept"): the aspects
of the topic the documents address, each document's provision on it side by side, then the
differences, stated ("six years vs five years", "must vs should"), the common ground, and what
only one document covers.

Aspects come from the documents themselves: each document's provisions closest to the topic
(diverse, so each is a different point), paired across documents only where two share their
own topic too (compare_pairing); a provision with no such counterpart is covered by one
document only. An aspect is named by its provisions' titles, in words (compare_aspects).

Every count the answer states is counted from the rows the table shows: a row differs when
its documents set different figures, bind with different force or bind different persons,
or when only one of them addresses it; it is common ground only when they state the same
figure or lay down the same duty (compare_duties); a pair that does neither is shown side by
side and claimed as neither."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal
from uuid import UUID

import numpy as np

from regintel.chat.engine import Composed
from regintel.chat.offline import compare_aspects, compare_pairing
from regintel.chat.offline.compare_duties import modal, same_duty
from regintel.chat.offline.compose import cite
from regintel.chat.offline.ranking import (
    Matrix,
    Sentence,
    differing_figures,
    figures,
    mmr,
    same_figures,
)
from regintel.domain.chat import (
    ComparisonCell,
    ComparisonResult,
    ComparisonRow,
    Statement,
)
from regintel.domain.documents import DocType, Document, short_title
from regintel.obligations.extract import actor_of, find_modal
from regintel.obligations.lexical import content_words
from regintel.retrieval.evidence import CitationBook, clause_of, markers

ASPECTS = 4  # per document, at most
ASPECT_MARGIN = 0.15  # a provision within this of the document's best is on the topic
# A document whose closest provision fits the topic this much less than another document's
# does not address it: its nearest provisions are another subject's, and pairing them would
# show "both address it" where only one does. From ten development comparisons of the demo
# rulebooks: 0.02-0.16 where both documents have rules on the topic, 0.25-0.48 where one has
# none (a conduct topic in a general rulebook or in a financial-crime one).
OFF_TOPIC = 0.2
NOT_ADDRESSED = "Not addressed."
_NUMBERING = re.compile(r"^[\d.()A-Za-z]{0,12}\d[\d.()]*\s+")
# How a row counts: the documents differ in what they state ("differs"), not every one of them
# addresses it ("one": one document of two), they state the same figure or duty ("same"), or
# they stand side by side with nothing compared either way ("side").
Status = Literal["differs", "one", "same", "side"]


@dataclass(frozen=True)
class Chosen:
    """Each document's provisions on the topic, and the documents too far from it to be set
    against the others (``far``)."""

    points: dict[UUID, list[Sentence]]
    far: list[UUID]


def choose(documents: Sequence[Document], on_topic: dict[UUID, list[tuple[Sentence, float]]],
           vector_of: dict[int, Matrix]) -> Chosen:
    best = {d.id: max((f for _, f in on_topic.get(d.id, [])), default=0.0) for d in documents}
    far = [d.id for d in documents if best[d.id] < max(best.values()) - OFF_TOPIC]
    return Chosen({d.id: [] if d.id in far else _points(on_topic.get(d.id, []), vector_of)
                   for d in documents}, far)


def compare(documents: Sequence[Document], on_topic: dict[UUID, list[tuple[Sentence, float]]],
            vector_of: dict[int, Matrix], topic: str, book: CitationBook, *,
            place_vector: dict[int, Matrix] | None = None,
            chosen: Chosen | None = None) -> Composed:
    """``on_topic``: each document's provisions with their fit to the topic; ``vector_of``:
    each provision's unit vector by ``id``; ``place_vector``: the unit vector of where each
    chosen provision stands (compare_pairing.place_of), when known."""
    titles = {d.id: d.title for d in documents}
    chosen = chosen or choose(documents, on_topic, vector_of)
    picked = [s for items in chosen.points.values() for s in items]
    rows = _rows(documents, chosen, compare_pairing.readings(
        picked, vector_of, place_vector or {}, compare_pairing.antecedents(
            [s for items in on_topic.values() for s, _ in items], picked)))
    names = compare_aspects.told_apart(
        [(compare_aspects.name([s for s in cells.values() if s is not None]),
          [s for s in cells.values() if s is not None]) for cells in rows])

    table: list[ComparisonRow] = []
    listed: dict[Status, list[Statement]] = {"differs": [], "one": [], "same": [], "side": []}
    unique: dict[str, list[Statement]] = {}
    for aspect, cells in zip(names, rows, strict=True):
        cited = {doc: (s, cite(book, s)) for doc, s in cells.items() if s is not None}
        marks = [n for _, st in cited.values() if st for n in st.citations]
        status, said = _verdict(cells, titles)
        table.append(ComparisonRow(aspect=aspect, differs=status in ("differs", "one"), cells=[
            ComparisonCell(document_id=doc, text=s.shown if s else NOT_ADDRESSED,
                           citation=(st.citations[0] if (st := cited[doc][1]) else None)
                           if s else None) for doc, s in cells.items()]))
        statement = Statement(text=f"{aspect}: {said}", citations=marks)
        listed[status].append(statement)
        if status == "one":
            for doc in cited:
                unique.setdefault(str(doc), []).append(statement)

    lines = [_opening(topic, documents, table, listed, far=chosen.far), ""]
    pair = len(documents) == 2
    for heading, status in (("Differences", "differs"), ("Common ground", "same"),
                            (f"Addressed by {'both' if pair else 'all'}, in terms not compared",
                             "side"),
                            ("Covered by one document only" if pair else
                             "Not covered by every document", "one")):
        if listed[status]:
            lines += [f"{heading}:"] + [f"- {st.text} {markers(st.citations)}".rstrip()
                                        for st in listed[status]] + [""]
    lines += ["Side by side:"]
    for row in table:
        lines.append(f"- {row.aspect}")
        for cell in row.cells:
            lines.append(f"  - {titles[cell.document_id]}: {cell.text} "
                         f"{markers([cell.citation] if cell.citation else [])}".rstrip())
    result = ComparisonResult(mode="focused", topic=topic, table=table,
                              differences=listed["differs"], similarities=listed["same"],
                              unique=unique, overview=lines[0])
    return Composed(answer="\n".join(lines).strip(), comparison=result)


def _rows(documents: Sequence[Document], chosen: Chosen, read: dict[int, Matrix],
          ) -> list[dict[UUID, Sentence | None]]:
    """The first document's provisions, each with its counterpart in every other document
    that has one; then the others' provisions no pair took, each alone."""
    first, *others = [d.id for d in documents]
    matches = {other: compare_pairing.pair(chosen.points[first], chosen.points[other], read)
               for other in others}
    rows: list[dict[UUID, Sentence | None]] = []
    for s in chosen.points[first]:
        row: dict[UUID, Sentence | None] = {first: s}
        rows.append(row | {other: matches[other].get(id(s)) for other in others})
    for other in others:
        taken = {id(s) for s in matches[other].values()}
        rows += [{d.id: s if d.id == other else None for d in documents}
                 for s in chosen.points[other] if id(s) not in taken]
    return rows


def _verdict(cells: dict[UUID, Sentence | None], titles: dict[UUID, str]) -> tuple[Status, str]:
    """What the row says, and how it counts: the documents differ, only some address it, they
    state the same thing, or they stand side by side with nothing compared either way."""
    found = [doc for doc, s in cells.items() if s is not None]
    if len(found) < len(cells):
        named = " and ".join(short_title(titles[doc]) for doc in found)
        return "one", f"only {named} {'addresses' if len(found) == 1 else 'address'} it"
    if _differs(cells):
        return "differs", _difference(cells, titles)
    shared = _agreement(cells)
    if shared is not None:
        return "same", shared
    return "side", "each in its own terms, with no figure, duty or person bound that they " \
        "share or set apart"


def _points(items: list[tuple[Sentence, float]], vector_of: dict[int, Matrix]) -> list[Sentence]:
    """The document's provisions on the topic: close to it, and each a different point."""
    if not items:
        return []
    best = max(f for _, f in items)
    near = [(s, f) for s, f in items if f >= best - ASPECT_MARGIN]
    if len(near) == 1:
        return [near[0][0]]
    matrix = np.stack([vector_of[id(s)] for s, _ in near])
    return [near[i][0] for i in mmr([f for _, f in near], matrix, ASPECTS, diversity=0.5)]


def _differs(cells: dict[UUID, Sentence | None]) -> bool:
    found = [s for s in cells.values() if s is not None]
    if len(found) < len(cells):
        return True
    return disagree(found)


def disagree(found: Sequence[Sentence]) -> bool:
    """Statements that set different figures, bind with different force, or bind different
    persons."""
    return differing_figures([s.text for s in found]) is not None or forces_differ(found) \
        or bearers_differ(found)


# A statement in the passive ("records must be kept") names what is done, not who does it;
# a copula ("must be fit") says what someone is, and is left out with it.
_PASSIVE = re.compile(r"\s*(?:not\s+)?be\b", re.I)
BEARER_WORDS = 6
_ARTICLE = re.compile(r"^(?:a|an|the|each|every|any)$", re.I)
_PRONOUN = re.compile(r"^(?:it|they|he|she|this|that|these|those|which|who|such|there)$", re.I)


def bearer(text: str) -> str | None:
    """Who a statement binds, as it names them ("an Authorised Person"): the subject before
    its modal, when the statement is in the active voice and names someone."""
    text = _NUMBERING.sub("", " ".join(text.split()))
    found = find_modal(text)
    if found is None or _PASSIVE.match(text, found.end()):
        return None
    actor = actor_of(text, found.start())
    # A heading or a reference run into the sentence ("Conflicts of Interest: The disclosure
    # in Rule 3.3.23") is no one's name.
    if not actor or _PRONOUN.match(actor) or not content_words(actor) or \
            len(actor.split()) > BEARER_WORDS or re.search(r"[\d:;()]", actor):
        return None
    first, _, rest = actor.partition(" ")
    # "binds a Licensed Firm", mid-sentence: a determiner in lower case, the name as written.
    return f"{first.lower()} {rest}" if rest and _ARTICLE.match(first) else actor


def bearers_differ(found: Sequence[Sentence]) -> bool:
    """Regulations that bind someone each, named differently ("a Licensed Firm" and "an
    Authorised Firm"): the duty falls on another person, or on a differently defined one. A
    firm's own document names itself ("the Firm") where a rule names whom it binds, so only
    regulations are compared so."""
    if any(s.hit.doc_type is not DocType.REGULATION for s in found):
        return False
    named = [bearer(s.text) for s in found]
    return all(named) and len({content_words(n or "") for n in named}) > 1


def forces_differ(found: Sequence[Sentence]) -> bool:
    """Both bind, one more strongly - rule against rule, or guidance against guidance: a
    guidance note's "should" beside a rule's "must" is two kinds of text, not two duties."""
    modals = [modal(s.text) for s in found]
    return all(modals) and len(set(modals)) > 1 and len({_guidance(s) for s in found}) == 1


def _guidance(sentence: Sentence) -> bool:
    return "guidance" in (clause_of(sentence.hit, sentence.text) or "").lower()


def _difference(cells: dict[UUID, Sentence | None], titles: dict[UUID, str]) -> str:
    """The differing facts, stated: "six years vs five years", else "must vs should"."""
    found = {doc: s for doc, s in cells.items() if s is not None}
    differing = differing_figures([s.text for s in found.values()])
    if differing is not None:
        return " vs ".join(f"{', '.join(figs)} ({short_title(titles[d])})"
                           for d, figs in zip(found, differing, strict=True))
    if forces_differ(list(found.values())):
        modals = {doc: modal(s.text) or "states" for doc, s in found.items()}
        stated = " vs ".join(f"{modals[d]} ({short_title(titles[d])})" for d in found)
    else:
        named = {doc: bearer(s.text) for doc, s in found.items()}
        stated = "binds " + " vs ".join(f"{named[d]} ({short_title(titles[d])})"
                                        for d in found)
    # What they agree on beside it: "binds … vs …; both state at least six years".
    shared = _agreement(cells)
    return f"{stated}; {shared}" if shared and shared.startswith("both state") else stated


def _agreement(cells: dict[UUID, Sentence | None]) -> str | None:
    """The same fact or duty in every document: "both state at least six years", "both say
    an Authorised Person must clearly disclose …"; None when they state nothing alike."""
    found = [s for s in cells.values() if s is not None]
    figs = figures(found[0].text) if found else []
    # "Both state" only what every one of them states.
    if figs and all(same_figures(found[0].text, s.text) for s in found[1:]):
        return f"both state {', '.join(figs)}"
    return same_duty(found)


def _opening(topic: str, documents: Sequence[Document], table: Sequence[ComparisonRow],
             listed: dict[Status, list[Statement]], *, far: Sequence[UUID] = ()) -> str:
    """One sentence that answers the comparison, citing the provisions it rests on: how many
    of the table's rows differ (those one document alone addresses among them) and how many
    state the same, counted from the rows themselves, then the first difference, else the
    first point in common; or, when documents do not address the topic (``far``), which do."""
    names = " and ".join(short_title(d.title) for d in documents)
    lead = next((listed[k][0] for k in ("differs", "same", "one", "side") if listed[k]), None)
    if lead is None:
        return f"On {topic}, {names} have no provision the search found."
    if far:
        near = [short_title(d.title) for d in documents if d.id not in far]
        absent = " and ".join(short_title(d.title) for d in documents if d.id in far)
        return (f"On {topic}, only {' and '.join(near)} {'has' if len(near) == 1 else 'have'} "
                f"provisions to compare; {absent} {'has' if len(far) == 1 else 'have'} none "
                f"close to it (the nearest are far less close), so none is set against them. "
                f"{markers(lead.citations)}")
    rows, differ = len(table), sum(row.differs for row in table)
    alone = sum(any(c.text == NOT_ADDRESSED for c in row.cells) for row in table)
    noun = "aspect" if rows == 1 else "aspects"
    said = f"differ on {differ} of {rows} {noun}" if differ else \
        f"differ on none of the {rows} {noun} compared"
    if alone:
        said += f" ({alone} covered by one document only)" if len(documents) == 2 else \
            f" ({alone} not covered by every document)"
    if listed["same"]:
        said += f" and state the same on {len(listed['same'])}"
    return f"On {topic}, {names} {said}, first on {lead.text}. {markers(lead.citations)}"
