"""The audit's summary says what the per-regulation caps left out: a reader told of 25
omissions must not take them for all the audit found."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

from regintel.domain.chat import AuditFinding
from regintel.domain.documents import DocStatus, DocType, Document
from regintel.obligations.audit_summary import summary


def _rulebook() -> Document:
    return Document(id=uuid4(), title="AML Rulebook", version="9", doc_type=DocType.REGULATION,
                    status=DocStatus.READY, original_filename="aml.pdf",
                    mime_type="application/pdf", size_bytes=1, created_at=datetime.now(UTC),
                    content_hash="0", file_path="x")


def _gap(target: Document) -> AuditFinding:
    return AuditFinding(target_doc_id=target.id, target_doc_title=target.title, kind="gap",
                        severity="Medium", consequence="Breach of 4.8.1.",
                        target_quote="A Relevant Person must ensure …", target_clause="4.8.1",
                        suggestion="Add a clause.", confidence_score=0.5)


def test_the_summary_owns_up_to_findings_left_out() -> None:
    rulebook = _rulebook()
    text = summary([_gap(rulebook)], [rulebook], ["Training"], held_back=3)
    assert text.endswith("Up to 3 further findings of lower severity or confidence were not "
                         "listed.")
    assert "Up to 1 further finding of lower severity or confidence was not listed." in \
        summary([_gap(rulebook)], [rulebook], ["Training"], held_back=1)


def test_a_complete_list_says_nothing_of_the_kind() -> None:
    rulebook = _rulebook()
    assert "not listed" not in summary([_gap(rulebook)], [rulebook], ["Training"])


def test_the_summary_names_what_was_set_aside_as_not_offered() -> None:
    rulebook = _rulebook()
    for findings in ([_gap(rulebook)], []):
        text = summary(findings, [rulebook], ["Payments"],
                       not_offered=["correspondent", "nested"])
        assert text.endswith("Rules on activities the policy says the firm does not offer "
                             "(correspondent, nested) were not checked.")
    assert "does not offer" not in summary([], [rulebook], ["Payments"])
