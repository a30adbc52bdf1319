"""Each action yields its typed result on real documents, and every quote verifies verbatim
against the stored chunk it cites."""

from __future__ import annotations

import re

from regintel.bench import summaries
from regintel.chat.service import ChatService
from regintel.container import Container
from regintel.domain.chat import Action, ChatResponse, Engine
from regintel.retrieval.evidence import verify
from tests.chat.conftest import Conversation, Corpus


async def _all_quotes_verify(container: Container, corpus: Corpus, r: ChatResponse) -> None:
    assert r.citations
    chunks = await container.chunk_index.fetch(
        corpus.tenant_id, [c.chunk_id for c in r.citations if c.chunk_id])
    for c in r.citations:
        assert c.chunk_id in chunks
        stored, document = chunks[c.chunk_id]
        assert verify(c.quote, stored.text), c.quote
        assert len(c.quote) <= 300 and document.id == c.document_id
        # A PDF's page; a text document has none (it is cited by section and lines).
        assert c.page == (stored.page_start if document.mime_type == "application/pdf"
                          else None) and c.title == document.title
    assert r.validation.sources.dropped == 0
    used = {int(n) for n in re.findall(r"\[(\d+)\]", r.answer)}
    assert used <= {c.n for c in r.citations}


async def test_inquire_answers_with_verified_citations(conversation: Conversation,
                                                       container: Container,
                                                       corpus: Corpus) -> None:
    r = await conversation.ask("How long must a Relevant Person keep CDD records?")
    assert r.action is Action.INQUIRE and r.confidence is not None
    assert r.confidence.tier in ("high", "medium")
    if r.engine is Engine.OFFLINE:  # the stub model picks sentences by word overlap only
        assert any("six years" in c.quote for c in r.citations), (r.answer, r.citations)
    assert r.validation.sources.grounded, (r.answer, r.validation.sources)
    await _all_quotes_verify(container, corpus, r)


async def test_a_list_item_is_answered_with_its_lead_in(conversation: Conversation,
                                                         container: Container,
                                                         corpus: Corpus) -> None:
    """AML 4.5.1's items start a chunk of their own; the rule that says what they are is in
    the chunk before, and the answer shows it with them (the quote stays in its chunk)."""
    r = await conversation.ask("What records must a Relevant Person keep of its "
                               "communications with the FIU?", tagged_doc_ids=[corpus.aml.id])
    if r.engine is Engine.OFFLINE:  # the stub model writes its own sentences
        # After the lead-in on its line, or under it with the list's other items shown.
        assert re.search(r"maintain the following records:(?: … | \[\d+\]\n(?: +- .*\n)*?"
                         r" +- \(e\) )[^\n]*communications with the FIU", r.answer), r.answer
    # The lead-in is shown, not quoted: the claim is the item, which its quote supports.
    assert r.validation.sources.grounded, (r.answer, r.validation.sources)
    await _all_quotes_verify(container, corpus, r)


async def test_a_list_asked_for_is_shown_whole_each_item_cited(conversation: Conversation,
                                                               container: Container,
                                                               corpus: Corpus) -> None:
    """AML 4.5.1's seven kinds of record run over two chunks, and search returns the one
    with "(e)" to "(g)"; the answer shows the rule's whole list, not the items it found."""
    r = await conversation.ask("What records must a Relevant Person maintain?",
                               tagged_doc_ids=[corpus.aml.id])
    if r.engine is Engine.OFFLINE:  # the stub model writes its own sentences
        block = r.answer.split("maintain the following records:", 1)[1]
        items = re.findall(r"^ +- \(([a-z]+)\) .*\[(\d+)\]$", block, flags=re.M)
        letters = [mark for mark, _ in items if mark not in ("i", "ii", "iii")]
        assert letters == list("abcdefg"), r.answer
        assert len({n for _, n in items}) == len(items)  # each item its own quote
    assert r.validation.sources.grounded, (r.answer, r.validation.sources)
    await _all_quotes_verify(container, corpus, r)


async def test_the_rule_a_passage_names_things_by_is_read_and_answers(
        conversation: Conversation, container: Container, corpus: Corpus) -> None:
    """Asked how long records must be kept, search finds the passages that name the records
    by their rule ("The records required to be kept under Rule 4.5.1 may be kept in
    electronic format"), and training records' six years (13.3.2), not AML 4.5.1, whose
    period closes its seven-item list; the answer reads 4.5.1 and leads with it."""
    r = await conversation.ask("How long must records be kept?", tagged_doc_ids=[corpus.aml.id])
    if r.engine is Engine.OFFLINE:
        first = r.citations[0]
        assert (first.clause, "six years" in first.quote) == ("4.5.1", True), r.answer
        # The answer opens with the rule ("Under …, 4.5.1: … maintain the following records:").
        assert r.answer.startswith("Under ") and \
            "maintain the following records:" in r.answer.split("\n")[0], r.answer
    assert r.validation.sources.grounded, (r.answer, r.validation.sources)
    await _all_quotes_verify(container, corpus, r)


async def test_a_question_about_requirements_is_answered_from_the_rules_first(
        conversation: Conversation, container: Container, corpus: Corpus) -> None:
    """AML 8.7.1.Guidance repeats the question's words more closely than Rule 8.7.1(1) does;
    asked what a firm must do, the answer leads with the rule, and the guidance follows."""
    r = await conversation.ask("What must a Relevant Person do if it is unable to complete "
                               "CDD?", tagged_doc_ids=[corpus.aml.id])
    if r.engine is Engine.OFFLINE:
        clauses = [c.clause or "" for c in r.citations]
        assert clauses and "Guidance" not in clauses[0], clauses
        assert any(c.startswith("8.7.1.(1)") for c in clauses), clauses
        ruled = ["Guidance" not in c for c in clauses]
        assert ruled == sorted(ruled, reverse=True), clauses  # no rule after guidance
    await _all_quotes_verify(container, corpus, r)


async def test_an_answer_from_guidance_alone_leads_with_the_rule_it_explains(
        conversation: Conversation, container: Container, corpus: Corpus) -> None:
    """Worded "cannot complete", the question draws only AML 8.7.1's guidance ("should …");
    the answer shows the rule that guidance explains first, its six measures each cited."""
    r = await conversation.ask("What must a Relevant Person do if it cannot complete CDD?",
                               tagged_doc_ids=[corpus.aml.id])
    if r.engine is Engine.OFFLINE:
        clauses = [c.clause or "" for c in r.citations]
        assert clauses[0] == "8.7.1.(1)", clauses
        block = r.answer.split("it must, where appropriate:", 1)[1]
        items = re.findall(r"^ +- \(([a-f])\) .*\[(\d+)\]$", block, flags=re.M)
        assert [mark for mark, _ in items] == list("abcdef"), r.answer
        assert any("Guidance" in c for c in clauses), clauses  # the guidance follows
    assert r.validation.sources.grounded, (r.answer, r.validation.sources)
    await _all_quotes_verify(container, corpus, r)


async def test_summarize_gives_sections_with_key_obligations(conversation: Conversation,
                                                             container: Container,
                                                             corpus: Corpus) -> None:
    r = await conversation.ask("Summarize", action=Action.SUMMARIZE,
                               tagged_doc_ids=[corpus.policy.id, corpus.aml.id])
    assert r.summary is not None
    # Both engines write the summary themselves (the LLM one no longer hands it to offline).
    assert r.engine is not Engine.LLM_FALLBACK, r.context.get("fallbacks")
    assert [s.document_id for s in r.summary.sections] == [corpus.policy.id, corpus.aml.id]
    for section in r.summary.sections:
        # A document's parts walked in order (the offline engine, when its chunks record
        # headings), or its key obligations.
        said = section.key_obligations or [p.statement for p in section.parts]
        assert section.overview and len(said) >= 3
        assert all(o.citations for o in said)
    await _all_quotes_verify(container, corpus, r)


async def test_a_rulebook_summary_walks_its_chapters_in_order(offline_chat: ChatService,
                                                              container: Container,
                                                              corpus: Corpus) -> None:
    r = await Conversation(offline_chat, corpus.tenant_id).ask(
        "Summarise this rulebook", action=Action.SUMMARIZE, tagged_doc_ids=[corpus.aml.id])
    assert r.summary is not None
    [section] = r.summary.sections
    numbers = [int(m.group()) for p in section.parts if (m := re.match(r"\d+", p.heading))]
    assert len(numbers) == len(section.parts) >= 10, [p.heading for p in section.parts]
    assert numbers == sorted(numbers), "the chapters in the document's order"
    # Each chapter's line is a statement of that chapter: its citation's clause is under it.
    by_n = {c.n: c for c in r.citations}
    for number, part in zip(numbers, section.parts, strict=True):
        clause = by_n[part.statement.citations[0]].clause or ""
        assert clause.split(".")[0] == str(number), (part.heading, clause)
    assert section.coverage is not None
    covered = re.match(r"(\d+) of (\d+) chapters", section.coverage)
    assert covered and int(covered[1]) == len(section.parts) <= int(covered[2]), section.coverage
    assert f"Coverage: {section.coverage}." in r.answer
    # Each chapter's line leads with a binding duty of that chapter, as the obligation
    # register reads one (not an exemption, not guidance), where the passages read hold one.
    rows = await container.registers.get(corpus.tenant_id, corpus.aml.id)
    scored = summaries.score_section(section, r.citations, rows)
    assert summaries.figures_of(scored["lines"])["share"] >= 0.75, scored["lines"]
    assert any(p.statement.text.count(" Its other duties: ") == 1 and
               len(p.statement.citations) >= 2 for p in section.parts)
    await _all_quotes_verify(container, corpus, r)


async def test_compare_focused_builds_a_difference_table(conversation: Conversation,
                                                         container: Container,
                                                         corpus: Corpus) -> None:
    r = await conversation.ask("Compare the record-keeping periods",
                               tagged_doc_ids=[corpus.policy.id, corpus.aml.id])
    assert r.comparison is not None and r.comparison.mode == "focused"
    assert r.engine is not Engine.LLM_FALLBACK, r.context.get("fallbacks")
    row = r.comparison.table[0]
    assert len(row.cells) == 2 and all(c.citation for c in row.cells)
    if r.engine is Engine.OFFLINE:
        # The rulebook's period for the records the policy speaks of (4.5.1, the last item of
        # its list), not the one for training records (13.3.2), chosen alone as closer.
        aml = next(c for c in row.cells if c.document_id == corpus.aml.id)
        cited = next(c for c in r.citations if c.n == aml.citation)
        assert (cited.clause, "six years" in aml.text) == ("4.5.1", True), r.answer
    await _all_quotes_verify(container, corpus, r)


async def test_audit_of_pasted_text(conversation: Conversation, container: Container,
                                    corpus: Corpus) -> None:
    email = ("Dear client, to speed up onboarding we no longer need identification documents "
             "from new customers, and we will not check any customer against sanctions lists. "
             "Suspicious transactions are discussed with the customer before any report.")
    r = await conversation.ask("Audit this email against the AML rules", source_text=email,
                               tagged_doc_ids=[corpus.aml.id])
    assert r.action is Action.AUDIT and r.audit is not None and r.audit.mode == "text"
    assert r.audit.findings and r.audit.overall_status != "No issues found"
    for finding in r.audit.findings:
        assert finding.source_quote is None or verify(finding.source_quote, email)
    await _all_quotes_verify(container, corpus, r)


async def test_an_email_pasted_into_the_message_is_audited(conversation: Conversation,
                                                          container: Container,
                                                          corpus: Corpus) -> None:
    # Its words ("his ID documents") are not taken for a reference to documents.
    email = ("Hi team, to speed up onboarding for our new client we will open the account "
             "today and collect his ID documents next month. Please don't mention anything "
             "to compliance.")
    r = await conversation.ask(f"Check this email against the AML rules: {email}",
                               tagged_doc_ids=[corpus.aml.id])
    assert r.needs_input is None, r.needs_input
    assert r.action is Action.AUDIT and r.audit is not None and r.audit.mode == "text"
    quoted = {f.source_quote for f in r.audit.findings}
    assert quoted and all(q is not None and verify(q, email) for q in quoted)
    if r.engine is Engine.OFFLINE:  # the stub model flags what its script says
        assert "Please don't mention anything to compliance." in quoted
    await _all_quotes_verify(container, corpus, r)
