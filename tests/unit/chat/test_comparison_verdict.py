"""A focused comparison says "consistent" only of what the offline engine can compare."""

from __future__ import annotations

from uuid import uuid4

from regintel.chat.offline.compare import _disagree, _verdict
from regintel.chat.offline.ranking import Sentence, sentences_of
from regintel.domain.documents import ChunkHit, DocType


def _sentence(text: str) -> Sentence:
    hit = ChunkHit(ordinal=0, text=text, page_start=1, page_end=1, char_start=0,
                   char_end=len(text), clause=None, chunk_id=uuid4(), document_id=uuid4(),
                   document_title="Doc", document_version="1", doc_type=DocType.REGULATION,
                   score=0.5)
    (found,) = sentences_of([hit])
    return found


RULE = _sentence("A Relevant Person must keep its records for at least six years.")
SAME = _sentence("The Firm must keep all client records for at least six years.")
LONGER = _sentence("The Firm must keep all client records for at least eight years.")
PROSE = _sentence("The Firm must keep copies of all due diligence documents on its clients.")


def test_the_verdict_says_only_what_was_compared() -> None:
    assert not _disagree(RULE, SAME)
    assert _verdict([RULE, SAME], False) == "The documents state the same figures on this point."
    assert _disagree(RULE, LONGER)
    assert _verdict([RULE, LONGER], True) == "The documents differ on this point."
    # Without figures on both sides nothing was compared but how binding each is.
    assert not _disagree(RULE, PROSE)
    assert _verdict([RULE, PROSE], False).startswith("No difference in figures")
