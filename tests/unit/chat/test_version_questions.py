"""Reading a question about versions: whether it asks what changed, which two versions it is
about (named by label or year, or the current one and the one before), the one version an
ordinary question names, and the changes on its topic."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

from regintel.changes.report import compare_texts
from regintel.chat.version_changes import (
    is_change_question,
    named_version,
    pair_asked,
    relevant,
    topic_of,
)
from regintel.domain.documents import DocStatus, DocType, Document

FAMILY = uuid.uuid4()


def _version(label: str, effective: date, current: bool = False) -> Document:
    return Document(id=uuid.uuid4(), title="Records Rules", version=label,
                    doc_type=DocType.REGULATION, status=DocStatus.READY,
                    original_filename="r.txt", mime_type="text/plain", size_bytes=1,
                    created_at=datetime(2026, 1, 1, tzinfo=UTC), content_hash="-",
                    file_path="-", family_id=FAMILY, effective_date=effective,
                    is_current=current)


CHAIN = [_version("2012", date(2012, 3, 1)), _version("2014", date(2014, 6, 1)),
         _version("2016", date(2016, 1, 1), current=True)]


def test_questions_that_ask_what_changed() -> None:
    for asked in ("What changed in Part 478 between the 2012 and 2014 versions?",
                  "What changed about record keeping?",
                  "Did the new version change the reporting deadline?",
                  "What are the main amendments?", "What's new in the 2016 version?"):
        assert is_change_question(asked), asked
    for asked in ("How long must records be kept?", "What must the firm keep?",
                  "Who approves the annual report under the 2012 version?"):
        assert not is_change_question(asked), asked


def test_the_two_versions_a_change_question_is_about() -> None:
    pair = pair_asked("What changed between the 2012 and 2014 versions?", CHAIN)
    assert pair is not None and (pair.old.version, pair.new.version) == ("2012", "2014")
    pair = pair_asked("What changed in the 2014 version?", CHAIN)
    assert pair is not None and (pair.old.version, pair.new.version) == ("2012", "2014")
    pair = pair_asked("Did the new version change the deadline?", CHAIN)  # current, before it
    assert pair is not None and (pair.old.version, pair.new.version) == ("2014", "2016")
    pair = pair_asked("What changed since 2013?", CHAIN)  # the version in force in 2013
    assert pair is not None and (pair.old.version, pair.new.version) == ("2012", "2014")


def test_the_one_version_an_ordinary_question_names() -> None:
    named = named_version("What did the 2014 version require?", CHAIN)
    assert named is not None and named.version == "2014"
    stood = named_version("How long were records kept as it stood in 2013?", CHAIN)
    assert stood is not None and stood.version == "2012"
    assert named_version("Records of transactions after 2012: how long?", CHAIN) is None


OLD = """§ 7.1 Records.

(a) Records must be kept for five years.
(b) The report is due within 30 days after the end of the quarter.
"""
NEW = OLD.replace("five years", "six years").replace("30 days", "10 days")


def test_the_changes_on_the_questions_topic() -> None:
    report = compare_texts(OLD, NEW)
    words, said = topic_of("What changed about record keeping?", CHAIN[:1])
    assert said == "record keeping"
    [records] = relevant(report, words, set())
    assert "six years" in (records.new_quote or "")
    [deadline] = relevant(report, set(), {"deadline"})
    assert "10 days" in (deadline.new_quote or "")
    assert len(relevant(report, set(), set())) == 2  # no topic: every substantive change
