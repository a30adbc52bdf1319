"""The engine's reading of references, read again without needless questions back
(document_references)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from regintel.chat.document_references import reread
from regintel.chat.engine import ReferenceResolution
from regintel.chat.state import DocRef
from regintel.domain.documents import DocStatus, DocType, Document


def _document(title: str) -> Document:
    return Document(id=uuid.uuid4(), title=title, version="", doc_type=DocType.REGULATION,
                    status=DocStatus.READY, original_filename="doc.txt", mime_type="text/plain",
                    size_bytes=1, created_at=datetime.now(UTC), content_hash="0" * 64,
                    file_path="doc.txt")


AML = _document("ADGM Anti-Money Laundering and Sanctions Rules and Guidance (AML)")
COBS = _document("ADGM Conduct of Business Rulebook (COBS)")
READY = [AML, COBS]
LOW = ReferenceResolution(True, [], "low", "'these rules' has nothing to refer to")


def _ref(d: Document, turn: int) -> DocRef:
    return DocRef(id=str(d.id), title=d.title, version="", doc_type="regulation", turn=turn)


def _unmatched(name: str) -> ReferenceResolution:
    return ReferenceResolution(True, [], "low", "not in play", unmatched=name)


def test_a_name_no_document_of_the_library_has_is_searched_not_asked() -> None:
    out = reread(_unmatched("CDD"), "What do the KYC/CDD rules require?", [], [], READY, None, 5)
    assert out.inference_confidence == "none"
    # A library document not yet in the thread is still the resolver's to choose.
    assert reread(_unmatched("COBS"), "What do the COBS rules say?", [], [], READY, None,
                  5).inference_confidence == "low"


def test_these_rules_are_the_tagged_then_the_thread_documents() -> None:
    medium = ReferenceResolution(True, [], "medium", "several", candidates=[str(AML.id)])
    message = "What do these rules say about training?"
    assert reread(medium, message, [AML], [], READY, None, 5).inference_confidence == "none"
    registry = [_ref(COBS, 1), _ref(AML, 2)]
    out = reread(medium, message, [], registry, READY, None, 5)
    assert (out.inference_confidence, out.inferred_doc_ids) == ("high", [str(AML.id)])
    # "this regulation" among several is a real question.
    assert reread(medium, "What does this regulation say?", [], registry, READY, None,
                  5).inference_confidence == "medium"


def test_these_rules_after_an_untagged_answer_are_the_documents_it_cited() -> None:
    memory = {"recent": [
        {"role": "user", "content": "What must an employee do?"},
        {"role": "assistant", "content": "…", "metadata": {"citations": [
            {"document_id": str(AML.id)}, {"document_id": str(AML.id)},
            {"document_id": str(uuid.uuid4())}]}}]}  # a document since deleted
    out = reread(LOW, "What do these rules say about training?", [], [], READY, memory, 5)
    assert (out.inference_confidence, out.inferred_doc_ids) == ("high", [str(AML.id)])
    # With nothing in front of the user, the question back stays.
    assert reread(LOW, "What do these rules say?", [], [], READY, None, 5) is LOW


def test_the_rules_in_general_opening_a_conversation_search_the_library() -> None:
    for message in ("What are the rules on gifts and hospitality?",
                    "What does the regulation say about outsourcing to a cloud provider?",
                    "Under the rulebook, what must a firm do about conflicts?"):
        out = reread(LOW, message, [], [], READY, None, 5)
        assert (out.inference_confidence, out.inferred_doc_ids) == ("none", []), message
    # Pointing at something in particular, or a comparison that needs its documents: asked.
    for message in ("Does this rulebook apply to a representative office?",
                    "What do those rules say about training?",
                    "What does the regulation above say?", "Summarise it"):
        assert reread(LOW, message, [], [], READY, None, 5) is LOW, message
    assert reread(LOW, "Compare the policy with the rulebook on training", [], [], READY,
                  None, 5, ask_only=False) is LOW
