"""Summaries and comparisons from one structured call each.

The model answers in JSON: statements, each with the numbers of the evidence items it comes
from. Here the numbers become citations the way the streamed answer's markers do
(``citing.best_sentence``): the quote is the sentence of the cited chunk closest to the
statement, cut verbatim from the stored text and verified by the citation book — never words
the model wrote. The typed result is built and the prose answer rendered in the offline
engine's shape, so the UI and the CLI show either engine's report the same way.

An answer that cannot be mapped faithfully is rejected whole (``StepFailed``), and the step
runs on the offline engine: a document id that was not shown, a number that is not in the
evidence (or, for a per-document part, evidence of another document), a statement without a
citation, a missing or empty section.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from regintel.chat.engine import Composed
from regintel.chat.llm import prompts as p
from regintel.chat.llm.citing import best_sentence
from regintel.chat.offline.compose import bullet
from regintel.chat.offline.ranking import figures
from regintel.domain.chat import (
    ComparisonCell,
    ComparisonResult,
    ComparisonRow,
    Statement,
    SummaryResult,
    SummarySection,
)
from regintel.domain.documents import ChunkHit, Document, titled
from regintel.retrieval.evidence import CitationBook, markers

NO_TEXT = "The document has no summarisable text."  # the offline engine's wording
NOT_ADDRESSED = "Not addressed."
# A document's label as given ("D2") or as a small model may copy it ("d2", "2").
_LABEL = re.compile(r"[Dd]?(\d{1,3})")
_MARKERS = re.compile(r"\s*\[\d{1,3}(?:\s*,\s*\d{1,3})*\]")


class StepFailed(Exception):
    """The model's answer to one step is unusable; the step runs on the fallback."""


@dataclass(frozen=True)
class Numbered:
    """The evidence shown to the model: item ``n`` is ``hits[n - 1]``."""

    hits: tuple[ChunkHit, ...]

    @classmethod
    def of(cls, documents: Sequence[Document], evidence: dict[UUID, list[ChunkHit]], *,
           per_document: int, best_first: bool) -> Numbered:
        """Each document's hits in turn, at most ``per_document`` of them: the best first
        (a focused comparison) or in the order given (a stratified sample reads in document
        order)."""
        hits: list[ChunkHit] = []
        for document in documents:
            mine = evidence.get(document.id, [])
            if best_first:
                mine = sorted(mine, key=lambda h: -h.score)
            hits += mine[:per_document]
        return cls(tuple(hits))

    def items(self, document_id: UUID) -> list[tuple[int, ChunkHit]]:
        return [(n, h) for n, h in enumerate(self.hits, 1) if h.document_id == document_id]

    @property
    def document_ids(self) -> set[UUID]:
        return {h.document_id for h in self.hits}

    @property
    def labels(self) -> dict[UUID, str]:
        """Each shown document's short id (``D1``, ``D2`` … in the order shown): a small model
        copies it where it garbles a UUID, and it costs two tokens, not twenty-five."""
        order = dict.fromkeys(h.document_id for h in self.hits)
        return {d: f"D{i}" for i, d in enumerate(order, 1)}


class Citer:
    """Statements of one answer → ``Statement`` with verified citation numbers."""

    def __init__(self, numbered: Numbered, book: CitationBook) -> None:
        self._hits = numbered.hits
        self._shown = numbered.document_ids
        self._labelled = {label: d for d, label in numbered.labels.items()}
        self._book = book

    def document(self, value: str, where: str) -> UUID:
        """The id of a document the model was shown (its label, or its UUID), or
        ``StepFailed``."""
        label = _LABEL.fullmatch(value.strip())
        if label:
            document_id = self._labelled.get(f"D{int(label.group(1))}")
            if document_id is None:
                raise StepFailed(f"{where}: document {value.strip()!r} is not among the "
                                 "documents")
            return document_id
        try:
            document_id = UUID(value.strip())
        except ValueError as exc:
            raise StepFailed(f"{where}: {value[:40]!r} is not a document id") from exc
        if document_id not in self._shown:
            raise StepFailed(f"{where}: document {document_id} is not among the documents")
        return document_id

    def statement(self, item: p.CitedOutput, where: str, *,
                  document_id: UUID | None = None) -> Statement:
        """``document_id``: the statement belongs to that document and may cite only its
        evidence."""
        text = " ".join(_MARKERS.sub("", item.text).split())
        if not text:
            raise StepFailed(f"{where}: an empty statement")
        if not item.evidence:
            raise StepFailed(f"{where}: a statement without a citation")
        invented = [n for n in item.evidence if not 1 <= n <= len(self._hits)]
        if invented:
            raise StepFailed(f"{where}: cites evidence {invented}, which was not shown")
        if document_id is not None:
            foreign = [n for n in item.evidence if self._hits[n - 1].document_id != document_id]
            if foreign:
                raise StepFailed(f"{where}: cites evidence {foreign} of another document")
        numbers: list[int] = []
        for n in dict.fromkeys(item.evidence):
            hit = self._hits[n - 1]
            number = self._book.cite_sentence(hit, best_sentence(hit, text))
            if number is not None and number not in numbers:
                numbers.append(number)
        if not numbers:
            raise StepFailed(f"{where}: no citation of the statement verifies")
        return Statement(text=text, citations=numbers)


def summary(out: p.SummaryOutput, documents: Sequence[Document], numbered: Numbered,
            book: CitationBook) -> Composed:
    citer = Citer(numbered, book)
    given: dict[UUID, p.SummarySectionOutput] = {}
    for i, section in enumerate(out.documents, 1):
        document_id = citer.document(section.document_id, f"section {i}")
        if document_id in given:
            raise StepFailed(f"section {i}: a second section for document {document_id}")
        if not section.key_obligations:
            raise StepFailed(f"section {i}: no key obligations")
        given[document_id] = section
    missing = numbered.document_ids - given.keys()
    if missing:
        raise StepFailed(f"no section for documents {sorted(map(str, missing))}")
    sections: list[SummarySection] = []
    lines: list[str] = []
    for document in documents:
        asked = given.get(document.id)
        if asked is None:  # no evidence was sampled: the offline engine's placeholder
            sections.append(SummarySection(document_id=document.id, title=document.title,
                                           overview=NO_TEXT))
            continue
        where = f"summary of {document.title}"
        overview = citer.statement(asked.overview, f"{where}, overview",
                                   document_id=document.id)
        key = [citer.statement(o, f"{where}, obligation {j}", document_id=document.id)
               for j, o in enumerate(asked.key_obligations, 1)]
        sections.append(SummarySection(document_id=document.id, title=document.title,
                                       overview=overview.text, key_obligations=key))
        heading = titled(document.title, document.version)
        lines += [f"## {heading}", "",
                  f"Overview: {overview.text} {markers(overview.citations)}", "",
                  "Key obligations:", *(bullet(s) for s in key), ""]
    return Composed(answer="\n".join(lines).strip(), summary=SummaryResult(sections=sections))


def focused(out: p.FocusedComparisonOutput, documents: Sequence[Document], numbered: Numbered,
            topic: str, book: CitationBook) -> Composed:
    citer = Citer(numbered, book)
    titles = {d.id: d.title for d in documents}
    rows: list[ComparisonRow] = []
    shown: list[list[Statement | None]] = []  # per row, per document: the cell's statement
    for i, row in enumerate(out.rows, 1):
        given: dict[UUID, p.ComparisonCellOutput] = {}
        for cell in row.cells:
            document_id = citer.document(cell.document_id, f"row {i}")
            if document_id in given:
                raise StepFailed(f"row {i}: a second cell for document {document_id}")
            given[document_id] = cell
        missing = numbered.document_ids - given.keys()
        if missing:
            raise StepFailed(f"row {i}: no cell for documents {sorted(map(str, missing))}")
        if not any(c.addressed for c in given.values()):
            raise StepFailed(f"row {i}: no document addresses {row.aspect!r}")
        cells: list[ComparisonCell] = []
        statements: list[Statement | None] = []
        for document in documents:
            answered = given.get(document.id)
            if answered is None or not answered.addressed:
                cells.append(ComparisonCell(document_id=document.id, text=NOT_ADDRESSED))
                statements.append(None)
                continue
            st = citer.statement(p.CitedOutput(text=answered.text or " ",
                                               evidence=answered.evidence),
                                 f"row {i}, {document.title}", document_id=document.id)
            # The table holds one citation per cell; the answer shows all of them.
            cells.append(ComparisonCell(document_id=document.id, text=st.text,
                                        citation=st.citations[0]))
            statements.append(st)
        silent = any(s is None for s in statements)
        rows.append(ComparisonRow(aspect=" ".join(row.aspect.split()), cells=cells,
                                  differs=row.differs or silent))
        shown.append(statements)
    differences, similarities = _contrasts(citer, out.differences, out.similarities)
    lines = [f"Comparison of {topic} across {len(documents)} documents:", ""]
    for table_row, cited_cells in zip(rows, shown, strict=True):
        if len(rows) > 1:
            lines.append(f"{table_row.aspect}:")
        for table_cell, backing in zip(table_row.cells, cited_cells, strict=True):
            figs = ", ".join(figures(table_cell.text))
            lead = titles[table_cell.document_id] + (f" ({figs})" if figs else "")
            cited = markers(backing.citations) if backing else ""
            lines.append(f"- {lead}: {table_cell.text} {cited}".rstrip())
        lines.append("")
    differ = sum(r.differs for r in rows)
    if len(rows) == 1:
        lines.append("The documents differ on this point." if differ else
                     "The documents are consistent on this point.")
    else:
        lines.append(f"The documents differ on {differ} of {len(rows)} aspects." if differ
                     else "The documents are consistent on every aspect.")
    for heading, items in (("Key differences", differences), ("Similarities", similarities)):
        if items:
            lines += ["", f"{heading}:", *(bullet(s) for s in items)]
    result = ComparisonResult(mode="focused", topic=topic, overview=lines[0], table=rows,
                              differences=differences, similarities=similarities)
    return Composed(answer="\n".join(lines), comparison=result)


def _contrasts(citer: Citer, differences: Sequence[p.CitedOutput],
               similarities: Sequence[p.CitedOutput]) -> tuple[list[Statement], list[Statement]]:
    """The comparison's differences and similarities, cited; one of them must say something."""
    cited = ([citer.statement(s, f"difference {j}") for j, s in enumerate(differences, 1)],
             [citer.statement(s, f"similarity {j}") for j, s in enumerate(similarities, 1)])
    if not cited[0] and not cited[1]:
        raise StepFailed("neither differences nor similarities")
    return cited


def holistic(out: p.HolisticComparisonOutput, documents: Sequence[Document],
             numbered: Numbered, book: CitationBook) -> Composed:
    citer = Citer(numbered, book)
    titles = {d.id: d.title for d in documents}
    overview = citer.statement(out.overview, "overview")
    differences, similarities = _contrasts(citer, out.differences, out.similarities)
    unique: dict[str, list[Statement]] = {str(d.id): [] for d in documents}
    seen: set[UUID] = set()
    for i, entry in enumerate(out.unique, 1):
        document_id = citer.document(entry.document_id, f"unique {i}")
        if document_id in seen:
            raise StepFailed(f"unique {i}: a second entry for document {document_id}")
        seen.add(document_id)
        unique[str(document_id)] = [
            citer.statement(s, f"unique to {titles[document_id]}, point {j}",
                            document_id=document_id) for j, s in enumerate(entry.points, 1)]
    implications = [citer.statement(s, f"implication {j}") for j, s in
                    enumerate(out.implications, 1)]
    result = ComparisonResult(mode="holistic", overview=overview.text, differences=differences,
                              similarities=similarities, unique=unique,
                              implications=implications)
    lines = ["## Overview", f"{overview.text} {markers(overview.citations)}", ""]
    for heading, items in (("Key differences", differences), ("Similarities", similarities)):
        lines += [f"## {heading}"] + ([bullet(s) for s in items] or ["- None identified."])
        lines.append("")
    lines.append("## Unique to each document")
    for doc_id, items in unique.items():
        lines.append(f"{titles[UUID(doc_id)]}:")
        lines += [bullet(s) for s in items] or ["- Nothing unique identified."]
    lines += ["", "## Implications"] + ([bullet(s) for s in implications]
                                        or ["- None identified."])
    return Composed(answer="\n".join(lines).strip(), comparison=result)
