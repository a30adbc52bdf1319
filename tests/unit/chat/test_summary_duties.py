"""A summary's key obligations are the duties of the person the document speaks to."""

from __future__ import annotations

from uuid import uuid4

from regintel.chat.offline.compose import SUMMARY_OBLIGATIONS, _self_description, key_duties
from regintel.chat.offline.ranking import Sentence, sentences_of
from regintel.domain.documents import ChunkHit, DocType

DUTIES = [f"{n}.1\tA Relevant Person must keep the {n}th record for six years.\r\n"
          for n in range(1, SUMMARY_OBLIGATIONS + 1)]
OTHERS = ["9.1\tChapter 14 contains the obligations that are required to be met.\r\n",
          "9.2\tThe Registrar of Companies shall suspend the licence of the DNFBP.\r\n",
          "9.3\tA Relevant Person should consider the guidance of the Regulator.\r\n"]


def _sentences(lines: list[str]) -> list[Sentence]:
    text = "".join(lines)
    return sentences_of([ChunkHit(ordinal=0, text=text, page_start=1, page_end=1, char_start=0,
                                  char_end=len(text), clause=None, chunk_id=uuid4(),
                                  document_id=uuid4(), document_title="AML",
                                  document_version="1", doc_type=DocType.REGULATION,
                                  score=0.5)], per_chunk=20)


def test_key_obligations_are_the_addressees_binding_duties() -> None:
    found = _sentences(OTHERS + DUTIES)
    assert len(found) == len(OTHERS) + len(DUTIES)
    chosen = key_duties(found, exclude=-1)
    assert [found[i].clean for i in chosen] == [found[i].clean for i in range(3, len(found))]


def test_every_obligation_when_too_few_duties_name_the_addressee() -> None:
    found = _sentences(OTHERS + DUTIES[:2])
    chosen = key_duties(found, exclude=-1)
    assert chosen == list(range(len(found)))


def test_the_overview_is_where_the_document_says_what_it_does() -> None:
    found = _sentences([
        "1.1\tKestrel employs around 65 people on Al Maryah Island and is not part of a group.\r\n",
        "1.2\tThese Rules apply in relation to Rule 5.1.1(b)(iii) of the General Rulebook.\r\n",
        "1.3\tThis Policy sets out how Kestrel prevents its services from being used for money "
        "laundering and terrorist financing.\r\n",
        "9.9\tThis Policy applies to every director, employee and contractor of Kestrel and to "
        "its nominees.\r\n"])
    assert len(found) == 4
    assert _self_description(found) == 2  # the first of the whole, not of one provision
    assert _self_description(found[:2]) is None
