"""The coverage matrix on a small rulebook and a policy written against it, with the real
embedding model: a rule met is covered, a rule left out is missing, a rule whose list item is
left out is partial (the item named), a policy period shorter than the rule's is conflicting
("five years vs at least six years"); findings quote both sides verbatim and cite them."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from uuid import UUID

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.parsers import AutoParser
from regintel.domain.coverage import CoverageMatrix
from regintel.domain.documents import DocStatus, DocType, Document, StoredChunk
from regintel.ingestion.chunking import chunk_document
from regintel.obligations.findings import findings_of
from regintel.obligations.lexical import content_words
from regintel.obligations.matrix import Regulation, row_text, rows_for
from regintel.obligations.policy_text import policy_units
from regintel.obligations.register import build_register
from regintel.obligations.triage import triage
from regintel.retrieval.evidence import CitationBook, verify

RULES = """Rulebook of Test Rules

3.1.1\tA Firm must keep a record of every complaint it receives for at least six years.
3.1.2\tA Firm must appoint a complaints officer who must:
(a)\tacknowledge each complaint in writing within five business days;
(b)\treport the complaints received to the Board at least annually; and
(c)\tkeep the complainant informed of the progress of the complaint.
3.1.3\tA Firm must publish its complaints handling procedure on its website.
4.1.1\tA Firm must hold adequate professional indemnity insurance cover at all times.
"""
POLICY = """Complaints Policy

1. Records. We keep a record of every complaint we receive for five years.
2. Complaints officer. We have appointed a complaints officer. The complaints officer
acknowledges each complaint in writing within five business days of receiving it.
The complaints officer keeps the complainant informed of the progress of the complaint.
3. Publication. The complaints handling procedure is published on our website.
"""


def _document(data: str, filename: str, doc_type: DocType) -> tuple[Document, list[StoredChunk]]:
    parsed = AutoParser().parse(data.encode(), filename)
    doc_id = uuid.uuid4()
    chunks = [StoredChunk(id=uuid.uuid4(), document_id=doc_id, **c.model_dump())
              for c in chunk_document(parsed)]
    return Document(id=doc_id, title=filename, version="", doc_type=doc_type,
                    status=DocStatus.READY, original_filename=filename,
                    mime_type=parsed.mime_type, size_bytes=len(data),
                    created_at=datetime.now(UTC), content_hash="-", file_path="-"), chunks


def test_statuses_quotes_and_findings(embedder: LocalEmbedder) -> None:
    rules_doc, rule_chunks = _document(RULES, "rules.txt", DocType.REGULATION)
    policy_doc, policy_chunks = _document(POLICY, "policy.txt", DocType.POLICY)
    register = build_register(rules_doc, rule_chunks)
    regulation = Regulation(rules_doc.id, rules_doc.title, register,
                            embedder.embed([row_text(r) for r in register]),
                            embedder.embed([i.text for r in register for i in r.items]))
    units = policy_units(policy_chunks)
    mapped = rows_for(regulation, units, embedder.embed([u.context for u in units]))
    rows, scope = mapped.rows, mapped.scope
    status = {r.obligation.rule: r for r in rows}

    assert status["3.1.1"].status == "conflicting"
    assert [d.statement for d in status["3.1.1"].differing_facts] == [
        "five years vs at least six years"]
    assert status["3.1.2"].status == "partial"
    assert [m.split()[0] for m in status["3.1.2"].missing_items] == ["(b)"]
    assert status["3.1.3"].status == "covered"
    assert status["3.1.1"].severity == "High" and status["3.1.3"].severity is None
    # Insurance is a part the policy never speaks of: not checked, and said why.
    unchecked = [p for p in scope if not p.checked]
    assert "4.1.1" not in status and unchecked and "no policy text" in unchecked[0].reason

    for row in rows:
        for quote in row.policy_quotes:
            assert any(verify(quote.quote, c.text) for c in policy_chunks
                       if c.id == quote.chunk_id)
    matrix = CoverageMatrix(policy_document_id=policy_doc.id, regulation_ids=(rules_doc.id,),
                            rows=tuple(rows), scope=tuple(scope))
    book = CitationBook()
    chunks: dict[UUID, StoredChunk] = {c.id: c for c in [*rule_chunks, *policy_chunks]}
    found = findings_of(
        matrix, documents={rules_doc.id: rules_doc, policy_doc.id: policy_doc}, chunks=chunks,
        book=book, max_findings=10)
    findings = found.findings
    assert found.held_back == 0 and book.dropped == 0
    by_clause = {f.target_clause: f for f in findings}
    conflict = by_clause["3.1.1"]
    assert conflict.kind == "conflict" and conflict.source_quote is not None
    assert "five years" in conflict.source_quote and "six years" in conflict.target_quote
    assert "five years" in conflict.suggestion and "at least six years" in conflict.suggestion
    assert all(len(f.citations) >= 1 for f in findings)
    # An item left out is proposed, not asserted: it heads the review queue after the finding.
    assert "3.1.2(b)" not in by_clause and "3.1.2" not in by_clause
    queue = matrix.model_copy(update={"rows": tuple(triage(
        matrix.rows, found.proven,
        policy_words=content_words(" ".join(c.text for c in policy_chunks))))}).queue
    assert (queue[0].obligation.rule, queue[0].review) == ("3.1.1", "finding")
    assert (queue[1].obligation.rule, queue[1].review, queue[1].proposed) == (
        "3.1.2", "review", "missing")
    assert "(b)" in queue[1].reason and queue[1].priority > queue[-1].priority


def test_a_duty_left_to_choice_or_made_conditional_is_weakened() -> None:
    from regintel.domain.coverage import ObligationRow
    from regintel.obligations.matrix import _weakened
    from regintel.obligations.pages import Page
    from regintel.obligations.policy_text import PolicyUnit

    row = ObligationRow(id=uuid.uuid4(), document_id=uuid.uuid4(), modal="must",
                        text="The firm must decline to act for the client.",
                        strength="mandatory")
    page = Page(1, "", ())

    def unit(text: str) -> PolicyUnit:
        return PolicyUnit(page, 0, len(text), text, (), None)

    assert _weakened(row, unit("The officer may allow the business to proceed."))
    assert _weakened(row, unit("Clients are told only if the authority instructs us."))
    assert not _weakened(row, unit("We decline to act for the client."))
    assert not _weakened(row, unit("A client may ask to be reclassified."))  # the client's right
