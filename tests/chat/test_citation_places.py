"""Where a citation points (issue 35): a passage of a document without pages (the ADGM AML
rulebook, ingested from its plain-text file) is cited by clause, section path and the lines of
the file that hold the quote, never by a page; a PDF's passage keeps its page."""

from __future__ import annotations

from regintel.chat.service import ChatService
from regintel.domain.chat import Citation
from regintel.retrieval.evidence import normalise
from tests.chat.conftest import POLICY_PDF, RULEBOOKS, Conversation, Corpus

AML_FILE = RULEBOOKS / "AML_VER09.211223.txt"


def _file_lines(text: str, citation: Citation) -> str:
    assert citation.lines is not None
    lines = text.split("\n")
    return "\n".join(lines[citation.lines.start - 1:citation.lines.end])


async def test_text_document_is_cited_by_section_and_lines(offline_chat: ChatService,
                                                           corpus: Corpus) -> None:
    conversation = Conversation(offline_chat, corpus.tenant_id)
    r = await conversation.ask("How long must a Relevant Person keep CDD records?",
                               tagged_doc_ids=(corpus.aml.id,))
    cited = [c for c in r.citations if c.document_id == corpus.aml.id]
    assert cited, r.citations
    # The file as a reader opens it: UTF-8 with its byte-order mark, lines as the editor
    # numbers them.
    source = AML_FILE.read_bytes().decode("utf-8-sig").replace("\r\n", "\n")
    lines = source.split("\n")
    for c in cited:
        assert c.page is None, c
        assert c.lines is not None and 1 <= c.lines.start <= c.lines.end <= len(lines), c
        # The quote is in exactly those lines of the file (whitespace aside: a quote may
        # span the tab after a clause number), and the range is no wider than the quote.
        held = _file_lines(source, c)
        assert normalise(c.quote) in normalise(held), (c.lines, c.quote, held)
        assert c.lines.end - c.lines.start <= c.quote.count("\n") + 1
        # The section path names the headings above the quote, outermost first, each a
        # real heading line of the file that comes before it.
        assert c.section, c
        before = "\n".join(lines[:c.lines.start])
        at = -1
        for heading in c.section.split(" › "):
            found = normalise(before).find(heading, at + 1)
            assert found > at, (heading, c.section)
            at = found
    # What a reader sees: the clause and heading, then the lines; no page.
    for c in cited:
        assert c.section is not None and c.lines is not None
        a, b = c.lines.start, c.lines.end
        span = f"line {a}" if a == b else f"lines {a}–{b}"
        assert c.location.startswith("§ ") and c.location.endswith(f" · {span}"), c.location
        assert c.section.split(" › ")[-1] in c.location and "page" not in c.location
    assert any(c.section and c.section.count(" › ") >= 1 for c in cited), cited


async def test_pdf_keeps_its_pages(offline_chat: ChatService, corpus: Corpus) -> None:
    import pymupdf

    conversation = Conversation(offline_chat, corpus.tenant_id)
    r = await conversation.ask("How long does the policy keep customer records?",
                               tagged_doc_ids=(corpus.policy.id,))
    cited = [c for c in r.citations if c.document_id == corpus.policy.id]
    assert cited, r.citations
    flags = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES  # as the parser reads
    with pymupdf.open(POLICY_PDF) as pdf:
        pages = [normalise(page.get_text("text", flags=flags)) for page in pdf]
    for c in cited:
        assert c.page is not None and c.lines is None, c
        # The page is the one that prints the quote.
        assert normalise(c.quote) in pages[c.page - 1], (c.page, c.quote)
        assert c.location.startswith(f"page {c.page}")
