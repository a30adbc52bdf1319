"""A focused comparison says "consistent" only of what the offline engine can compare."""

from __future__ import annotations

import re
from uuid import uuid4

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
    # Without figures on both sides nothing was compared but how binding each is - and both
    # saying "must" about different things (copies of due diligence documents, records for
    # six years) is no common ground.
    assert not _disagree(RULE, PROSE) and not _differs({a: RULE, b: PROSE})
    assert _agreement({a: PROSE, b: RULE}) is None
    assert _differs({a: RULE, b: None})  # one document alone is no common ground


def _in(text: str, clause: str) -> Sentence:
    hit = ChunkHit(ordinal=0, text=text, page_start=1, page_end=1, char_start=0,
                   char_end=len(text), clause=clause, chunk_id=uuid4(), document_id=uuid4(),
                   document_title="Rules (AR)", document_version="1",
                   doc_type=DocType.REGULATION, score=0.5)
    (found,) = sentences_of([hit])
    return found


def test_aspects_are_named_in_words_never_by_rule_number() -> None:
    from regintel.chat.offline.compare_aspects import name, told_apart

    def under(text: str, section: str) -> Sentence:
        hit = ChunkHit(ordinal=0, text=text, page_start=1, page_end=1, char_start=0,
                       char_end=len(text), clause="13.3.2", chunk_id=uuid4(),
                       document_id=uuid4(), document_title="Rules (AR)", document_version="1",
                       doc_type=DocType.REGULATION, score=0.5, section=section)
        (found,) = sentences_of([hit])
        return found

    training = under("These records must be kept for at least six years from the date the "
                     "training was given.", "13. TRAINING AND AWARENESS › 13.3 Record-keeping")
    reports = under("The details of every report made to the FIU must be kept for at least six "
                    "years.", "4. GENERAL COMPLIANCE REQUIREMENTS › 4.5 Record keeping")
    sanctions = under("The records of every sanctions screening must be kept for at least six "
                      "years.", "4. GENERAL COMPLIANCE REQUIREMENTS › 4.5 Record keeping")
    conflicts = under("Conflicts of Interest: An Authorised Person must disclose the general "
                      "nature of a conflict to the Client.", "3. SYSTEMS › 3.3 Systems and "
                      "controls")
    bare = _sentence("A firm must acknowledge every complaint of a client in writing within "
                     "five business days.")
    # A title run into the rule's text names it before the heading it sits under.
    assert name([conflicts]) == "Conflicts of Interest"
    # A pair is named by both titles when they differ, once when they are one in other case.
    assert name([training, conflicts]) == "Record-keeping / Conflicts of Interest"
    assert name([reports, training]) == "Record keeping"
    rows = [(name([s]), [s]) for s in (training, reports, sanctions, bare)]
    named = told_apart(rows)
    # Under one heading, by the heading above where that tells them apart, else by their own
    # words; a provision with no heading by what it requires.
    assert named[0] == "Record-keeping (Training and awareness)"
    assert named[1] == "Record keeping - details of every report made"
    assert named[2] == "Record keeping - sanctions screening"
    assert named[3] == "Acknowledge every complaint of a client"
    assert not any(re.search(r"\d+\.\d", n) for n in named)


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
    assert _agreement({a: note, b: rule}) is None  # both address conflicts: not common ground


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


def test_common_ground_is_the_same_duty_or_figure_only() -> None:
    a, b = uuid4(), uuid4()
    gen = _sentence("If arrangements made by an Authorised Person to manage conflicts of interest "
                    "are not sufficient, the Authorised Person must clearly disclose the general "
                    "nature of conflicts of interest to the Client before undertaking business.")
    cobs = _sentence("If arrangements made by an Authorised Person under Rule 3.5.3 are not "
                     "sufficient, the Authorised Person must clearly disclose the general nature "
                     "and sources of conflicts of interest to the Client before undertaking "
                     "business.")
    assert not _differs({a: gen, b: cobs})
    assert _agreement({a: gen, b: cobs}) == (
        "both say the Authorised Person must clearly disclose the general nature of conflicts "
        "of interest to the Client before undertaking business")
    # Records of one thing and of another are two duties, though both "must keep records".
    training = _sentence("A Relevant Person must keep records of the training given.")
    assessment = _sentence("A Relevant Person must keep records of the assessment made.")
    assert not _differs({a: training, b: assessment})
    assert _agreement({a: training, b: assessment}) is None
    # As binding, on other persons: a difference, never common ground.
    other = _sentence("A Payment Service Provider must keep records of the training given.")
    assert _differs({a: training, b: other}) and _agreement({a: training, b: other}) is None


def test_the_headline_counts_the_rows_the_table_shows() -> None:
    from datetime import UTC, datetime

    import numpy as np

    from regintel.chat.offline.compare_focused import compare
    from regintel.domain.documents import DocStatus, Document
    from regintel.retrieval.evidence import CitationBook

    def document(title: str) -> Document:
        return Document(id=uuid4(), title=title, version="1", doc_type=DocType.REGULATION,
                        status=DocStatus.READY, original_filename="r.txt",
                        mime_type="text/plain", size_bytes=1, created_at=datetime.now(UTC),
                        content_hash="0", file_path="x")

    def held(doc: Document, text: str) -> Sentence:
        hit = ChunkHit(ordinal=0, text=text, page_start=1, page_end=1, char_start=0,
                       char_end=len(text), clause="1.1", chunk_id=uuid4(), document_id=doc.id,
                       document_title=doc.title, document_version="1",
                       doc_type=DocType.REGULATION, score=0.5)
        (found,) = sentences_of([hit])
        return found

    first, second = document("Conduct Rules (CR)"), document("General Rules (GR)")
    said = {
        first.id: ["A firm must keep client records for at least six years.",
                   "A firm must acknowledge a complaint within five business days.",
                   "A firm should consider the nature of its business.",
                   "A firm must appoint a compliance officer."],
        second.id: ["A firm must keep client records for at least five years.",
                    "A firm must acknowledge each complaint within five business days.",
                    "A firm should review its business model regularly."]}
    held_by = {doc: [held(d, t) for t in texts]
               for d in (first, second) for doc, texts in said.items() if doc == d.id}
    # One point each, the same point in both documents (a pair), the fourth in one only.
    axes = np.eye(4, dtype=np.float32)
    vectors = {id(s): axes[i] for items in held_by.values() for i, s in enumerate(items)}
    composed = compare([first, second], {d: [(s, 0.7) for s in items]
                                         for d, items in held_by.items()},
                       vectors, "complaints and records", CitationBook())
    result = composed.comparison
    assert result is not None
    table = result.table
    assert [sum(c.text != "Not addressed." for c in row.cells) for row in table] == [2, 2, 2, 1]
    assert [row.differs for row in table] == [True, False, False, True]
    assert composed.answer.startswith(
        "On complaints and records, CR and GR differ on 2 of 4 aspects (1 covered by one "
        "document only) and state the same on 1, first on ")
    assert [s.text.split(": ", 1)[1] for s in result.similarities] == [
        "both state within five business days"]
    assert len(result.differences) == 1
    assert "both say the firm" not in composed.answer and "both address it" not in composed.answer
    # The pair with nothing compared either way is shown, claimed as neither.
    assert "Addressed by both, in terms not compared:" in composed.answer
