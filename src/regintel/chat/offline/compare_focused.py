"""A focused comparison ("the two rulebooks on how long records must be kept"): the aspects
of the topic the documents address, each document's provision on it side by side, then the
differences, stated ("six years vs five years", "must vs should"), the common ground, and what
only one document covers.

Aspects come from the documents themselves: the first document's provisions closest to the
topic (diverse, so each is a different point), each paired with the other documents' closest
provision on the same point. A provision no other document matches is covered by one only.
An aspect is named by the section heading its provision sits under, else by its clause."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from uuid import UUID

import numpy as np

from regintel.chat.engine import Composed
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
from regintel.obligations.extract import actor_of, find_modal, strength_of
from regintel.obligations.lexical import content_words
from regintel.retrieval.evidence import CitationBook, clause_of, markers

ASPECTS = 4  # per document, at most
ASPECT_MARGIN = 0.15  # a provision within this of the document's best is on the topic
SAME_POINT = 0.5  # cosine above which two documents' provisions speak of the same point
# A document whose closest provision fits the topic this much less than another document's
# does not address it: its nearest provisions are another subject's, and pairing them would
# show "both address it" where only one does. From ten development comparisons of the demo
# rulebooks: 0.02-0.16 where both documents have rules on the topic, 0.25-0.48 where one has
# none (a conduct topic in a general rulebook or in a financial-crime one).
OFF_TOPIC = 0.2
_NUMBERING = re.compile(r"^[\d.()A-Za-z]{0,12}\d[\d.()]*\s+")


def compare(documents: Sequence[Document], on_topic: dict[UUID, list[tuple[Sentence, float]]],
            vector_of: dict[int, Matrix], topic: str, book: CitationBook) -> Composed:
    """``on_topic``: each document's provisions with their fit to the topic; ``vector_of``:
    each provision's unit vector by ``id``."""
    titles = {d.id: d.title for d in documents}
    best = {d.id: max((f for _, f in on_topic.get(d.id, [])), default=0.0) for d in documents}
    far = [d.id for d in documents if best[d.id] < max(best.values()) - OFF_TOPIC]
    picked = {d.id: [] if d.id in far else _points(on_topic.get(d.id, []), vector_of)
              for d in documents}
    first, *others = [d.id for d in documents]
    rows: list[tuple[str, dict[UUID, Sentence | None]]] = []
    used: dict[UUID, set[int]] = {d: set() for d in others}
    for sentence in picked[first]:
        cells: dict[UUID, Sentence | None] = {first: sentence}
        for other in others:
            match = _counterpart(sentence, picked[other], used[other], vector_of)
            cells[other] = match
            if match is not None:
                used[other].add(id(match))
        rows.append((_aspect(sentence), cells))
    for other in others:
        for sentence in picked[other]:
            if id(sentence) not in used[other]:
                rows.append((_aspect(sentence), {d.id: sentence if d.id == other else None
                                                 for d in documents}))

    rows = _told_apart(rows)
    table: list[ComparisonRow] = []
    differences: list[Statement] = []
    common: list[Statement] = []
    only: list[Statement] = []
    unique: dict[str, list[Statement]] = {}
    for aspect, cells in rows:
        cited = {doc: (s, cite(book, s)) for doc, s in cells.items() if s is not None}
        table.append(ComparisonRow(aspect=aspect, differs=_differs(cells), cells=[
            ComparisonCell(document_id=doc, text=s.shown if s else "Not addressed.",
                           citation=(st.citations[0] if (st := cited[doc][1]) else None)
                           if s else None) for doc, s in cells.items()]))
        marks = [n for _, st in cited.values() if st for n in st.citations]
        if len(cited) < len(cells):
            named = ", ".join(short_title(titles[doc]) for doc in cited)
            statement = Statement(text=f"{aspect}: only {named} addresses it", citations=marks)
            only.append(statement)
            for doc in cited:
                unique.setdefault(str(doc), []).append(statement)
        elif _differs(cells):
            differences.append(Statement(text=f"{aspect}: {_difference(cells, titles)}",
                                         citations=marks))
        else:
            common.append(Statement(text=f"{aspect}: {_agreement(cells)}", citations=marks))

    lines = [_opening(topic, documents, differences, common, only, far=far), ""]
    for heading, statements in (("Differences", differences), ("Common ground", common),
                                ("Covered by one document only", only)):
        if statements:
            lines += [f"{heading}:"] + [f"- {st.text} {markers(st.citations)}".rstrip()
                                        for st in statements] + [""]
    lines += ["Side by side:"]
    for row in table:
        lines.append(f"- {row.aspect}")
        for cell in row.cells:
            lines.append(f"  - {titles[cell.document_id]}: {cell.text} "
                         f"{markers([cell.citation] if cell.citation else [])}".rstrip())
    result = ComparisonResult(mode="focused", topic=topic, table=table,
                              differences=differences, similarities=common, unique=unique,
                              overview=lines[0])
    return Composed(answer="\n".join(lines).strip(), comparison=result)


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


def _counterpart(sentence: Sentence, candidates: list[Sentence], used: set[int],
                 vector_of: dict[int, Matrix]) -> Sentence | None:
    free = [c for c in candidates if id(c) not in used]
    if not free:
        return None
    scored = [(float(vector_of[id(c)] @ vector_of[id(sentence)]), c) for c in free]
    cosine, best = max(scored, key=lambda pair: pair[0])
    return best if cosine >= SAME_POINT else None


def _aspect(sentence: Sentence) -> str:
    section = sentence.hit.section_at(sentence.position)
    if section:
        name = _NUMBERING.sub("", section.split("›")[-1].strip()).strip()
        if name and len(name) <= 80:
            return name
    clause = clause_of(sentence.hit, sentence.text)
    return f"{short_title(sentence.hit.document_title)} {clause}" if clause else \
        short_title(sentence.hit.document_title)


def _told_apart(rows: list[tuple[str, dict[UUID, Sentence | None]]],
                ) -> list[tuple[str, dict[UUID, Sentence | None]]]:
    """Aspects under one heading ("Record keeping" four times) named apart by the clause of
    their first provision ("Record keeping, MCR 13.3.2"): a reader must tell the rows apart."""
    seen = Counter(aspect for aspect, _ in rows)
    out = []
    for aspect, cells in rows:
        if seen[aspect] > 1:
            named = [f"{short_title(s.hit.document_title)} {clause}" for s in cells.values()
                     if s is not None and (clause := clause_of(s.hit, s.text))]
            # The first provision's clause, and the others' when that one is not enough
            # (three rows on items of one rule).
            if named and named[0].split(" ", 1)[-1] not in aspect:
                aspect = f"{aspect}, {named[0]}"
                if len(named) > 1:
                    aspect = f"{aspect} and {', '.join(named[1:])}"
        out.append((aspect, cells))
    return out


# How binding a statement is, as the obligation register reads its modal: "may arise" or "may
# be kept" bind no one, so they are not set against another document's "must".
_FORCE = {"mandatory": "must", "prohibition": "must not", "restriction": "may only",
          "recommendation": "should"}


def modal(text: str) -> str | None:
    found = find_modal(text)
    return _FORCE[strength_of(found[0])] if found else None


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
    return f"{stated}; {shared}" if shared.startswith("both state") else stated


def _agreement(cells: dict[UUID, Sentence | None]) -> str:
    found = [s for s in cells.values() if s is not None]
    figs = figures(found[0].text) if found else []
    # "Both state" only what every one of them states.
    if figs and all(same_figures(found[0].text, s.text) for s in found[1:]):
        return f"both state {', '.join(figs)}"
    verbs = {modal(s.text) for s in found}
    verb = verbs.pop() if len(verbs) == 1 else None  # "must" only when every one says it
    return f"both say the firm {verb} act on it" if verb else "both address it"


def _opening(topic: str, documents: Sequence[Document], differences: list[Statement],
             common: list[Statement], only: list[Statement], *, far: Sequence[UUID] = ()
             ) -> str:
    """One sentence that answers the comparison, citing the provisions it rests on: the first
    difference when there is one, else the first point in common; or, when documents do not
    address the topic (``far``), which do."""
    names = " and ".join(short_title(d.title) for d in documents)
    aspects = len(differences) + len(common) + len(only)
    lead = differences[0] if differences else common[0] if common else only[0] if only else None
    if lead is None:
        return f"On {topic}, {names} have no provision the search found."
    if far:
        near = [short_title(d.title) for d in documents if d.id not in far]
        absent = " and ".join(short_title(d.title) for d in documents if d.id in far)
        return (f"On {topic}, only {' and '.join(near)} {'has' if len(near) == 1 else 'have'} "
                f"provisions to compare; {absent} {'has' if len(far) == 1 else 'have'} none "
                f"close to it (the nearest are far less close), so none is set against them. "
                f"{markers(lead.citations)}")
    noun = "aspect" if aspects == 1 else "aspects"
    differ = f"differ on {len(differences)} of {aspects} {noun}" if differences else \
        f"differ in no figure, force or person bound on the {aspects} {noun} compared" \
        if not only else \
        f"were compared on {aspects} {noun}"
    return f"On {topic}, {names} {differ}, first on {lead.text}. {markers(lead.citations)}"
