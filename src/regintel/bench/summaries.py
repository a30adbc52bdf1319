"""``regintel bench summaries``: whether a whole-document summary says, for each part of a
rulebook, the part's binding duty (issue 49) - not an exemption, a guidance note or a
cross-reference to another part.

Each of the four rulebooks of the scenario corpus (AML, GEN, COBS and the GDPR, ingested
through the real pipeline by ``bench.scenario_corpus``) is summarised as one chat turn on the
offline engine ("Summarise this document", the document tagged). Each part-line of the
summary is judged by the quote its first citation makes - what the line leads with - against
the document's obligation register, which is built by the obligation extractor apart from the
summary code. The line states a binding duty of its part when that quote is an obligation
of the register (``register_row``) that

- binds: must, shall, is required to, may only, must not (the register's strength is not a
  recommendation: "should", or any sentence of guidance or commentary);
- is no exemption: it does not lift a duty ("is not required to", "need not", "does not
  apply", "is exempt");
- lies in that part: its section path runs through the part's heading.

The share of part-lines that do is reported per rulebook and pooled, beside the parts whose
register holds no such duty at all (what they set up is all a line can say of them), and the
failing lines as examples. Each summary is asked twice and the composition time of both is
reported: the first turn embeds what is not kept yet (on a document's first summary, its
part names: its sentences are embedded at ingestion), the second reads every vector back,
as a later summary of the document does."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from regintel.bench.scenario_corpus import ScenarioCorpus, ingest
from regintel.chat.service import ChatService
from regintel.container import Container
from regintel.domain.chat import Action, ChatRequest, ChatResponse, Citation, SummarySection
from regintel.domain.coverage import ObligationRow
from regintel.domain.documents import SECTION_SEPARATOR

# The scenario bench's corpus: ingested once for both benches (ingestion deduplicates).
TENANT = "bench-scenarios"
RULEBOOKS = ("AML", "GEN", "COBS", "GDPR")
ASK = "Summarise this document"
EXAMPLES = 4  # failing lines shown per rulebook
QUOTE_CHARS = 150
# How a quote and a register row are matched: one holds the other, or they open alike for
# this many characters (a quote cut at the citation's length, a row joined to its list).
SAME_OPENING = 80
MIN_MATCH = 40
_LABEL = re.compile(r"^\s*(?:\d+[A-Z]?(?:\.[0-9A-Za-z()]+)*\.?|\(?[a-z0-9ivx]{1,4}[.)])\s+")
_ITEM = re.compile(r"^\s*\([a-z0-9ivx]{1,4}\)\s")
# A sentence that lifts a duty rather than imposing one.
_EXEMPTION = re.compile(
    r"\b(?:(?:is|are|be)\s+not\s+(?:required|obliged|obligated)\s+to|need\s+not|"
    r"(?:does|do|shall|will|must)\s+not\s+apply|(?:is|are|be)\s+exempt(?:ed)?|"
    r"(?:is|are)\s+disapplied)\b", re.IGNORECASE)

Verdict = str  # "duty", or why the line is not one
DUTY = "duty"
NOT_IN_REGISTER = "not an obligation of the register"
NOT_BINDING = "guidance or recommendation"
EXEMPTION = "exemption"
OTHER_PART = "an obligation of another part"
NO_CITATION = "no citation"


def _flat(text: str) -> str:
    return " ".join(_LABEL.sub("", " ".join(text.split())).split()).lower()


def _texts(row: ObligationRow) -> list[str]:
    """What a quote of the row may be: the sentence with its list (as the text prints it),
    the sentence alone, its lead-in, or one of its items."""
    whole = " ".join([row.text, *(f"{i.label} {i.text}" for i in row.items)])
    return [_flat(t) for t in (whole, row.text, row.lead_in or "", *(i.text for i in row.items))]


def _matches(quote: str, row: ObligationRow) -> bool:
    q = _flat(quote)
    for text in _texts(row):
        if min(len(q), len(text)) < MIN_MATCH:  # "(b) Professional Client." is in many
            continue
        n = min(SAME_OPENING, len(q), len(text))
        if q in text or text in q or q[:n] == text[:n]:
            return True
    return False


def register_row(citation: Citation, rows: Sequence[ObligationRow]) -> ObligationRow | None:
    """The register's obligation that ``citation`` quotes (its sentence, its list's lead-in or
    one of its items): of its chunk when one is, else of its document."""
    found = [r for r in rows if r.document_id == citation.document_id
             and _matches(citation.quote, r)]
    if not found and _ITEM.match(citation.quote):
        # An item of a list the register read in part ("(f) …" of a rule it holds with
        # items (a) to (c)): the rule's own list.
        found = [r for r in rows if r.document_id == citation.document_id and r.items
                 and r.rule and r.rule == citation.clause]
    # Chunks overlap and rulebooks repeat their sentences ("must be able to demonstrate …" of
    # client money and of custody): the row of the quote's chunk, of its clause, and the
    # one that holds most of it.
    return max(found, default=None, key=lambda r: (
        citation.chunk_id in r.chunk_ids, bool(r.rule) and r.rule == citation.clause,
        _shared_opening(citation.quote, r)))


def _shared_opening(quote: str, row: ObligationRow) -> int:
    q = _flat(quote)
    return max(next((k for k, (a, b) in enumerate(zip(q, t, strict=False)) if a != b),
                    min(len(q), len(t))) for t in _texts(row))


def binds(row: ObligationRow) -> bool:
    return row.strength != "recommendation"


def exempts(row: ObligationRow) -> bool:
    return bool(_EXEMPTION.search(row.modal) or _EXEMPTION.search(row.text))


def in_part(row: ObligationRow, heading: str) -> bool:
    return heading.strip() in [p.strip() for p in (row.section or "").split(SECTION_SEPARATOR)]


def is_duty(row: ObligationRow) -> bool:
    return binds(row) and not exempts(row)


def judge(heading: str, citation: Citation | None, rows: Sequence[ObligationRow]) -> Verdict:
    """Whether a part-line leading with ``citation`` states a binding duty of the part."""
    if citation is None:
        return NO_CITATION
    row = register_row(citation, rows)
    if row is None:
        return NOT_IN_REGISTER
    if not binds(row):
        return NOT_BINDING
    if exempts(row):
        return EXEMPTION
    if not in_part(row, heading):
        return OTHER_PART
    return DUTY


def score_section(section: SummarySection, citations: Sequence[Citation],
                  rows: Sequence[ObligationRow]) -> dict[str, Any]:
    """The summary's part-lines judged, with the parts that have a duty to state."""
    by_n = {c.n: c for c in citations}
    lines = []
    for part in section.parts:
        lead = by_n.get(part.statement.citations[0]) if part.statement.citations else None
        verdict = judge(part.heading, lead, rows)
        has_duty = any(is_duty(r) and in_part(r, part.heading) for r in rows)
        lines.append({"heading": part.heading, "verdict": verdict, "has_duty": has_duty,
                      "clause": lead.clause if lead else None,
                      "quote": _short(lead.quote) if lead else "",
                      "others_cited": len(set(part.statement.citations)) - 1})
    return {"lines": lines, "coverage": section.coverage}


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= QUOTE_CHARS else f"{flat[:QUOTE_CHARS - 1]}…"


def figures_of(lines: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(lines)
    duties = sum(line["verdict"] == DUTY for line in lines)
    with_duty = [line for line in lines if line["has_duty"]]
    return {
        "part_lines": n,
        "binding_duties": duties,
        "share": round(duties / n, 3) if n else 0.0,
        "parts_with_a_duty": len(with_duty),
        "share_of_parts_with_a_duty": round(
            sum(line["verdict"] == DUTY for line in with_duty) / len(with_duty), 3)
        if with_duty else 0.0,
        "reasons": dict(Counter(line["verdict"] for line in lines if line["verdict"] != DUTY)),
    }


async def _summary(chat: ChatService, corpus: ScenarioCorpus, key: str) -> ChatResponse:
    return await chat.ask(corpus.tenant_id, ChatRequest(
        message=ASK, action=Action.SUMMARIZE, tagged_doc_ids=(corpus.documents[key].id,)))


def _composition_ms(response: ChatResponse) -> float:
    timings = cast(dict[str, float], response.context.get("timings_ms") or {})
    return round(float(timings.get("composition", 0.0)), 1)


async def run(container: Container, shared_data: Path, *,
              examples: int = EXAMPLES) -> dict[str, Any]:
    corpus = await ingest(container, TENANT, shared_data)
    chat = await container.chat()
    books: dict[str, Any] = {}
    pooled: list[dict[str, Any]] = []
    for key in RULEBOOKS:
        document = corpus.documents[key]
        rows = await container.registers.get(corpus.tenant_id, document.id)
        first = await _summary(chat, corpus, key)
        again = await _summary(chat, corpus, key)
        if first.summary is None or not first.summary.sections:
            raise RuntimeError(f"no summary of {document.title}: {first.answer[:200]}")
        scored = score_section(first.summary.sections[0], first.citations, rows)
        pooled += scored["lines"]
        books[key] = figures_of(scored["lines"]) | {
            "title": document.title, "coverage": scored["coverage"],
            "engine": first.engine.value,
            "composition_ms": {"first": _composition_ms(first), "again": _composition_ms(again)},
            "failing": [line for line in scored["lines"] if line["verdict"] != DUTY][:examples],
            "lines": scored["lines"]}
    return {"rulebooks": books, "pooled": figures_of(pooled)}


def table_rows(figures: dict[str, Any]) -> list[list[Any]]:
    rows = []
    for key, f in [*figures["rulebooks"].items(), ("pooled", figures["pooled"])]:
        timing = f.get("composition_ms")
        rows.append([key, f["part_lines"], f["binding_duties"], f["share"],
                     f["parts_with_a_duty"], f["share_of_parts_with_a_duty"],
                     f"{timing['first']} / {timing['again']}" if timing else ""])
    return rows


def failing_rows(figures: dict[str, Any]) -> list[list[Any]]:
    return [[key, line["heading"][:40], line["verdict"], line["clause"] or "", line["quote"]]
            for key, f in figures["rulebooks"].items() for line in f["failing"]]
