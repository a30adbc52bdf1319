"""A focused comparison says "consistent" only of what the offline engine can compare."""

from __future__ import annotations

from uuid import UUID, uuid4

from regintel.chat.offline.compare import _disagree
from regintel.chat.offline.compare_focused import _agreement, _difference, _differs
from regintel.chat.offline.ranking import Sentence, sentences_of
from regintel.domain.documents import ChunkHit, DocType


def _sentence(text: str, doc_type: DocType = DocType.REGULATION) -> Sentence:
    hit = ChunkHit(ordinal=0, text=text, page_start=1, page_end=1, char_start=0,
                   char_end=len(text), clause=None, chunk_id=uuid4(), document_id=uuid4(),
                   document_title="Doc", document_version="1", doc_type=doc_type,
                   score=0.5)
    (found,) = sentences_of([hit])
    return found


RULE = _sentence("A Relevant Person must keep its records for at least six years.")
SAME = _sentence("The Firm must keep all client records for at least six years.", DocType.POLICY)
LONGER = _sentence("The Firm must keep all client records for at least eight years.",
                   DocType.POLICY)
PROSE = _sentence("The Firm must keep copies of all due diligence documents on its clients.",
                  DocType.POLICY)


def test_the_verdict_says_only_what_was_compared() -> None:
    a, b = uuid4(), uuid4()
    titles = {a: "Rules (AR)", b: "Policy"}
    assert not _disagree(RULE, SAME) and not _differs({a: RULE, b: SAME})
    assert _agreement({a: RULE, b: SAME}) == "both state at least six years"
    assert _disagree(RULE, LONGER) and _differs({a: RULE, b: LONGER})
    assert _difference({a: RULE, b: LONGER}, titles) == (
        "at least six years (AR) vs at least eight years (Policy)")
    # Without figures on both sides nothing was compared but how binding each is.
    assert not _disagree(RULE, PROSE) and not _differs({a: RULE, b: PROSE})
    assert _agreement({a: PROSE, b: RULE}) == "both say the firm must act on it"
    assert _differs({a: RULE, b: None})  # one document alone is no common ground


def _in(text: str, clause: str) -> Sentence:
    hit = ChunkHit(ordinal=0, text=text, page_start=1, page_end=1, char_start=0,
                   char_end=len(text), clause=clause, chunk_id=uuid4(), document_id=uuid4(),
                   document_title="Rules (AR)", document_version="1",
                   doc_type=DocType.REGULATION, score=0.5)
    (found,) = sentences_of([hit])
    return found


def test_aspects_under_one_heading_are_named_apart() -> None:
    from regintel.chat.offline.compare_focused import _told_apart

    a = uuid4()
    training = _in("The records of the training must be kept for at least six years from the "
                   "date it was given.", "13.3.2")
    reports = _in("The details of every report made to the authority must be kept for at least "
                  "six years.", "14.5.1")
    complaints = _in("A firm must acknowledge every complaint of a client in writing within "
                     "five business days.", "7.2.1")
    rows: list[tuple[str, dict[UUID, Sentence | None]]] = [
        ("Record keeping", {a: training}), ("Record keeping", {a: reports}),
        ("Complaints", {a: complaints})]
    assert [name for name, _ in _told_apart(rows)] == [
        "Record keeping, AR 13.3.2", "Record keeping, AR 14.5.1", "Complaints"]


def test_one_period_in_other_words_is_no_difference() -> None:
    a, b = uuid4(), uuid4()
    minimum = _sentence("The Firm must keep all client records for a minimum of six years.",
                        DocType.POLICY)
    assert not _disagree(RULE, minimum) and not _differs({a: RULE, b: minimum})


def test_a_possibility_is_not_set_against_a_duty() -> None:
    # "may arise" and "may be kept" bind no one: no "may vs must" difference.
    a, b = uuid4(), uuid4()
    arise = _sentence("Conflicts of interest may arise in the course of providing a service.")
    kept = _sentence("The records may be kept in electronic format if readily accessible.")
    assert not _differs({a: arise, b: PROSE}) and not _differs({a: kept, b: PROSE})
    advice = _sentence("The Firm should keep copies of all due diligence documents.",
                       DocType.POLICY)
    assert _differs({a: advice, b: PROSE})
    assert _difference({a: advice, b: PROSE}, {a: "Rules (GR)", b: "Rules (AR)"}) == (
        "should (GR) vs must (AR)")


def test_who_approves_is_a_difference_stated() -> None:
    a, b = uuid4(), uuid4()
    board = _sentence("A new business relationship with a high-risk customer must be approved "
                      "by the Governing Body before it starts.")
    senior = _sentence("A new business relationship with a high-risk customer must be approved "
                       "by senior management before it starts.")
    assert _differs({a: board, b: senior}) and not _differs({a: board, b: board})
    assert _difference({a: board, b: senior}, {a: "Rules (AR)", b: "Policy"}) == (
        "approved by the Governing Body (AR) vs approved by senior management (Policy)")


def test_a_guidance_note_is_not_weighed_against_a_rule() -> None:
    a, b = uuid4(), uuid4()
    note = _in("A firm should extend its conflicts procedures to the allocation of an "
               "offering.", "6.4.6.Guidance.1")
    rule = _in("A firm must take into account, as a minimum, whether it is likely to make a "
               "gain at the expense of the client.", "3.3.22")
    advice = _in("A firm should record how it allocated an offering.", "6.4.7")
    assert not _differs({a: note, b: rule})
    assert _differs({a: advice, b: rule})  # a rule that only advises, against one that binds
    assert _agreement({a: note, b: rule}) == "both address it"


def test_whom_two_regulations_bind_is_a_difference_stated() -> None:
    a, b = uuid4(), uuid4()
    titles = {a: "Rules (AR)", b: "Rules (CR)"}
    relevant = _sentence("A Relevant Person must keep copies of all due diligence documents.")
    authorised = _sentence("An Authorised Person must keep copies of all due diligence "
                           "documents.")
    assert _differs({a: relevant, b: authorised})
    assert _difference({a: relevant, b: authorised}, titles) == (
        "binds a Relevant Person (AR) vs an Authorised Person (CR)")
    # The same person in other words, what is done with no one named, and a firm's own
    # document naming itself are no such difference.
    persons = _sentence("Relevant Persons must keep copies of all due diligence documents.")
    kept = _sentence("Copies of all due diligence documents must be kept.")
    assert not _differs({a: relevant, b: persons}) and not _differs({a: kept, b: authorised})
    assert not _differs({a: relevant, b: PROSE})
    # What they agree on is said beside it.
    six = _sentence("A Relevant Person must keep its records for at least six years.")
    assert _difference({a: six, b: _sentence("An Authorised Person must keep its records for at "
                                               "least six years.")}, titles) == (
        "binds a Relevant Person (AR) vs an Authorised Person (CR); both state at least six "
        "years")


def test_when_a_period_runs_from_is_a_difference_stated() -> None:
    a, b = uuid4(), uuid4()
    titles = {a: "Rules (AR)", b: "Rules (CR)"}
    ends = _sentence("Records must be kept for at least six years from the date on which the "
                     "business relationship ends.")
    made = _sentence("Records must be kept for at least six years from the date on which the "
                     "record was made.")
    assert _differs({a: ends, b: made}) and not _differs({a: ends, b: ends})
    assert _difference({a: ends, b: made}, titles) == (
        "at least six years, from the date on which the business relationship ends (AR) vs "
        "at least six years, from the date on which the record was made (CR)")


def test_a_document_far_from_the_topic_is_not_set_against_one_on_it() -> None:
    from datetime import UTC, datetime

    import numpy as np

    from regintel.chat.offline.compare_focused import compare
    from regintel.domain.documents import DocStatus, Document
    from regintel.retrieval.evidence import CitationBook

    def held(text: str, title: str) -> tuple[Document, Sentence]:
        document = Document(id=uuid4(), title=title, version="1", doc_type=DocType.REGULATION,
                            status=DocStatus.READY, original_filename="r.txt",
                            mime_type="text/plain", size_bytes=1, created_at=datetime.now(UTC),
                            content_hash="0", file_path="x")
        hit = ChunkHit(ordinal=0, text=text, page_start=1, page_end=1, char_start=0,
                       char_end=len(text), clause="1.1", chunk_id=uuid4(),
                       document_id=document.id, document_title=title, document_version="1",
                       doc_type=DocType.REGULATION, score=0.5)
        (found,) = sentences_of([hit])
        return document, found

    money, held_money = held("A firm must pay client money into a client account promptly.",
                             "Conduct Rules (CR)")
    other, held_other = held("A firm must keep its books in good order at all times.",
                             "General Rules (GR)")
    same = np.full(4, 0.5, dtype=np.float32)  # alike enough to be paired, were both on topic
    vectors = {id(held_money): same, id(held_other): same}
    for fit in (0.45, 0.7):
        composed = compare([money, other], {money.id: [(held_money, 0.73)],
                                            other.id: [(held_other, fit)]},
                           vectors, "client money", CitationBook())
        assert composed.comparison is not None
        cells = composed.comparison.table[0].cells
        paired = all(c.text != "Not addressed." for c in cells)
        assert paired is (fit == 0.7)
        assert composed.answer.startswith("On client money, only CR has provisions to "
                                          "compare; GR has none") is (fit == 0.45)
