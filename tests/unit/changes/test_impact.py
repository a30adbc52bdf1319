"""What a change does to the obligations: registers read from the two texts as ingestion does
(parsed, chunked, read back from the chunks), the change report of the pair, and each
obligation it adds, removes, alters, renumbers or only edits for form."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from regintel.adapters.parsers import AutoParser
from regintel.changes.impact import obligation_impact
from regintel.changes.report import compare_texts
from regintel.domain.coverage import ObligationRow
from regintel.domain.documents import DocStatus, DocType, Document, StoredChunk
from regintel.ingestion.chunking import chunk_document
from regintel.obligations.register import build_register

OLD = """PART 7—RECORDS

§ 7.1 Keeping records.

(a) Records must be kept for five years from the date of the transaction.
(b) A licensee shall  keep the register at its premises.
(c) The firm must send a copy of the register to the authority every year.

§ 7.2 Reports.

(a) The report must be filed within 30 days after the end of the quarter.
(b) The report must be signed by a director.

§ 7.3 Notices.

(a) A licensee must notify the authority of a change of address.
"""
NEW = """PART 7—RECORDS

§ 7.1 Keeping records.

(a) Records must be kept for six years from the date of the transaction.
(b) A licensee shall keep the register at its premises.

§ 7.2 Notices.

(a) A licensee must notify the authority of a change of address.

§ 7.3 Reports.

(a) The report must be filed within 30 days after the end of the quarter.
(b) The report must be signed by a director.
(c) The report must be approved by the board before it is filed.
"""


def _register(text: str, name: str) -> list[ObligationRow]:
    parsed = AutoParser().parse(text.encode(), f"{name}.txt")
    doc_id = uuid.uuid4()
    chunks = [StoredChunk(id=uuid.uuid4(), document_id=doc_id, **c.model_dump())
              for c in chunk_document(parsed)]
    document = Document(id=doc_id, title=name, version="", doc_type=DocType.REGULATION,
                        status=DocStatus.READY, original_filename=f"{name}.txt",
                        mime_type=parsed.mime_type, size_bytes=len(text),
                        created_at=datetime.now(UTC), content_hash="-", file_path="-")
    return build_register(document, chunks)


def _impacts() -> dict[str, list[tuple[str | None, str | None]]]:
    found: dict[str, list[tuple[str | None, str | None]]] = {}
    report = compare_texts(OLD, NEW, "2019", "2024")
    for impact in obligation_impact(report, _register(OLD, "2019"), _register(NEW, "2024")):
        found.setdefault(impact.kind, []).append(
            (impact.old.text if impact.old else None, impact.new.text if impact.new else None))
    return found


def test_each_obligation_a_change_touches_with_what_happened_to_it() -> None:
    found = _impacts()
    assert found["altered"] == [
        ("Records must be kept for five years from the date of the transaction.",
         "Records must be kept for six years from the date of the transaction.")]
    assert found["removed"] == [
        ("The firm must send a copy of the register to the authority every year.", None)]
    assert found["added"] == [
        (None, "The report must be approved by the board before it is filed.")]
    # Spacing only: a decision on it stands.
    assert found["editorial"] == [("A licensee shall  keep the register at its premises.",
                                   "A licensee shall keep the register at its premises.")]


def test_sections_moved_and_renumbered_touch_no_obligation_of_theirs() -> None:
    """§ 7.2 and § 7.3 swapped places: their obligations are neither new nor gone."""
    touched = {text for pairs in _impacts().values() for pair in pairs for text in pair}
    assert "The report must be signed by a director." not in touched
    assert "A licensee must notify the authority of a change of address." not in touched


def _row(rule: str, text: str) -> ObligationRow:
    return ObligationRow(id=uuid.uuid4(), document_id=uuid.uuid4(), document_title="x",
                         ordinal=0, rule=rule, text=text, modal="must", strength="mandatory")


def test_an_obligation_whose_rule_number_changed_with_its_section_is_renumbered() -> None:
    report = compare_texts(OLD, NEW)
    old = [_row("7.2(b)", "The report must be signed by a director.")]
    new = [_row("7.3(b)", "The report must be signed by a director.")]
    [impact] = obligation_impact(report, old, new)
    assert impact.kind == "renumbered" and not impact.reopens
    assert impact.old is not None and impact.new is not None
    assert (impact.old.rule, impact.new.rule) == ("7.2(b)", "7.3(b)")
    assert impact.old.key != impact.new.key  # what carries a decision across


def test_only_altered_and_removed_obligations_reopen_decisions() -> None:
    report = compare_texts(OLD, NEW)
    impacts = obligation_impact(report, _register(OLD, "a"), _register(NEW, "b"))
    assert {i.kind for i in impacts if i.reopens} == {"altered", "removed"}
    assert all(i.old is not None for i in impacts if i.reopens)


def test_a_sentence_wrapped_over_two_lines_is_one_obligation_touched_by_either_line() -> None:
    old = ("1. RECORDS\n\n1.1.1 A firm must keep all customer records for at least six years\n"
           "from the date on which the relationship ends.\n"
           "1.1.2 A firm must train its staff every year.\n")
    new = old.replace("six years", "seven years")
    report = compare_texts(old, new)
    [impact] = obligation_impact(report, _register(old, "a"), _register(new, "b"), old, new)
    assert impact.kind == "altered" and impact.old is not None and impact.new is not None
    assert impact.old.text.startswith("A firm must keep all customer records")
    assert impact.old.text.endswith("the relationship ends.")
    assert "seven years" in impact.new.text
    # Without the texts only a sentence inside the change's words is found: here, none.
    assert obligation_impact(report, _register(old, "a"), _register(new, "b")) == []
