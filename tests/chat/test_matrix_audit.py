"""The coverage-matrix audit in the chat: a policy audit turn answers from the matrix -
findings in the usual shape, every quote verbatim in its chunk and cited, the summary saying
what was checked and what was not - and when the engine fails, the turn says that nothing
was checked: the chat never breaks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.container import Container
from regintel.domain.chat import Action, ChatRequest, quoted
from regintel.obligations.auditor import MatrixAuditor
from regintel.obligations.reach import in_reach
from regintel.retrieval.evidence import verify
from regintel.settings import Settings
from tests.chat.conftest import Corpus
from tests.conftest import TEST_SECRET


@pytest.fixture
async def matrix_container(corpus: Corpus, data_dir: Path,
                           embedder: LocalEmbedder) -> AsyncIterator[Container]:
    settings = Settings(data_dir=data_dir, database_url=SecretStr(corpus.url),
                        secret_key=SecretStr(TEST_SECRET))
    opened = await Container.open(settings, embedder=embedder)
    yield opened
    await opened.close()


def _request(corpus: Corpus) -> ChatRequest:
    return ChatRequest(message="Audit the policy against these regulations", action=Action.AUDIT,
                       tagged_doc_ids=(corpus.policy.id, corpus.aml.id, corpus.gen.id))


async def test_the_matrix_answers_a_policy_audit(matrix_container: Container,
                                                 corpus: Corpus) -> None:
    chat = await matrix_container.chat()
    response = await chat.ask(corpus.tenant_id, _request(corpus))
    assert response.audit is not None and response.audit.findings
    assert response.audit.summary.startswith("Coverage matrix:")
    assert "Not checked:" in response.audit.summary
    chunks = {c.id: c.text for d in (corpus.aml, corpus.gen, corpus.policy)
              for c in await matrix_container.chunk_index.document_chunks(corpus.tenant_id,
                                                                           d.id)}
    cited = {c.n: c for c in response.citations}
    for finding in response.audit.findings:
        assert finding.citations and finding.suggestion
        quotes = [finding.target_quote] + ([finding.source_quote] if finding.source_quote
                                           else [])
        for n, quote in zip(finding.citations, quotes, strict=False):
            citation = cited[n]
            assert citation.chunk_id is not None and verify(quote, chunks[citation.chunk_id])


async def test_a_failing_audit_says_nothing_was_checked(
        matrix_container: Container, corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(*_: object, **__: object) -> None:
        raise RuntimeError("the matrix broke")

    monkeypatch.setattr(MatrixAuditor, "audit", broken)
    chat = await matrix_container.chat()
    response = await chat.ask(corpus.tenant_id, _request(corpus))
    assert response.audit is None and not response.citations
    assert "nothing was checked" in response.answer
    assert "compliant" not in response.answer.lower()


async def test_the_matrix_audits_a_pasted_text(matrix_container: Container,
                                               corpus: Corpus) -> None:
    # AML 4.5.1 keeps records "for at least six years"; the text deletes them after two.
    email = ("Dear team, to save storage we will delete all customer due diligence records "
             "and transaction records two years after the business relationship ends.")
    chat = await matrix_container.chat()
    response = await chat.ask(corpus.tenant_id, ChatRequest(
        message="Check this email against the AML rules", action=Action.AUDIT,
        source_text=email, tagged_doc_ids=(corpus.aml.id,)))
    audit = response.audit
    assert audit is not None and audit.mode == "text", response.answer
    on_rule = [f for f in audit.findings if (f.target_clause or "").startswith("4.5.1")]
    assert on_rule, response.answer
    finding = on_rule[0]
    assert finding.kind == "conflict" and finding.source_quote is not None
    # The matrix's wording (the rules engine, its fallback, words its findings otherwise).
    assert finding.consequence.startswith("The text contradicts the rule"), finding
    assert verify(finding.source_quote, email)
    assert f"Text: {quoted(finding.source_quote)}" in response.answer
    aml = {c.id: c.text for c in await matrix_container.chunk_index.document_chunks(
        corpus.tenant_id, corpus.aml.id)}
    cited = {c.n: c for c in response.citations}
    assert finding.citations
    citation = cited[finding.citations[0]]
    assert citation.chunk_id is not None and verify(finding.target_quote,
                                                    aml[citation.chunk_id])
    assert "compliant" not in response.answer.lower().replace("non-compliant", "")


async def test_a_pasted_text_is_read_against_the_rules_its_sentences_reach(
        matrix_container: Container, corpus: Corpus) -> None:
    # The library's search finds the text's subject (keeping records); the rules of other
    # subjects (wire transfers, training) are not read against it, so a shared phrase cannot
    # make one of them a finding.
    sentences = ["To save storage we will delete all customer due diligence records two years "
                 "after the business relationship ends."]
    auditor = matrix_container.matrix_auditor()
    whole = await auditor.regulation(corpus.tenant_id, corpus.aml)
    reached = await in_reach(matrix_container.retriever, corpus.tenant_id, whole, sentences)
    rules = {r.rule or "" for r in reached.rows}
    assert any(rule.startswith("4.5.1") for rule in rules), sorted(rules)
    assert 0 < len(reached.rows) < len(whole.rows) / 4, (len(reached.rows), len(whole.rows))
    assert not any(rule.startswith(("10.", "13.")) for rule in rules), sorted(rules)
    # The rows keep their own vectors and their items' (the matrix reads them by position).
    first = whole.rows.index(reached.rows[0])
    assert (reached.vectors[0] == whole.vectors[first]).all()
    assert len(reached.item_vectors) == sum(len(r.items) for r in reached.rows)
