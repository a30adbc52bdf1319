"""``regintel bench audit``: the policy audit's recall of the demo policy's planted gaps,
measured through the chat pipeline with the engine the settings configure.

Done-when 3 of the chat issue asks the audit of the sample policy (Falcon Crest) against the
ADGM AML rules to find 80 % of its planted gaps with no fabricated quote. The development
harness (research/audit_dev/matrix_dev.py, ``--policy demo``) measures the matrix auditor
alone; this command measures what a user gets: one audit turn (``action=audit``, the policy
and both rulebooks tagged) through ``ChatService``, so with ``REGINTEL_LLM__BASE_URL`` set it
is the model's audit (and ``engine`` says ``llm+fallback`` when the offline auditor had to
answer instead), with none set the offline engine's. The gap list is test data: nothing may
be tuned on what this prints.

Every finding's quotes are checked again here, apart from the pipeline's own check: a target
quote must stand verbatim (whitespace normalised) in a stored chunk of the target it cites, a
policy quote in one of the policy's. A quote that does not is counted ``fabricated``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

from regintel.bench.adgm_corpus import Corpus, ingest_demo
from regintel.bench.audit import PlantedGap, evaluate_audit, load_gaps
from regintel.container import Container
from regintel.domain.chat import Action, AuditResult, ChatRequest, ChatResponse
from regintel.ports.library import ChunkIndex
from regintel.retrieval.evidence import verify

TENANT = "bench-audit"
TARGET_RECALL = 0.8
REQUEST = "Audit the policy against these regulations"


async def run(container: Container, rulebooks: Path, gaps_file: Path) -> dict[str, Any]:
    """Ingest the demo corpus (once; a second run finds it stored), then ``audit_turn``."""
    corpus = await ingest_demo(container, TENANT, rulebooks)
    return await audit_turn(container, corpus, load_gaps(gaps_file))


async def audit_turn(container: Container, corpus: Corpus,
                     gaps: Sequence[PlantedGap]) -> dict[str, Any]:
    """Audit the corpus's policy against both rulebooks in one chat turn and score it."""
    chat = await container.chat()
    request = ChatRequest(message=REQUEST, action=Action.AUDIT,
                          tagged_doc_ids=(corpus.policy.id, corpus.aml.id, corpus.gen.id))
    started = time.perf_counter()
    response = await chat.ask(corpus.tenant_id, request)
    seconds = time.perf_counter() - started
    fabricated = await fabricated_quotes(container.chunk_index, corpus.tenant_id, response,
                                         policy_id=corpus.policy.id)
    return score(response, gaps, target_id=corpus.aml.id, fabricated=fabricated,
                 seconds=seconds)


def audit_of(response: ChatResponse) -> AuditResult:
    """The turn's audit; a turn that asked back or answered otherwise is an error, with what
    it said."""
    if response.audit is None:
        said = response.needs_input.message if response.needs_input else response.answer
        raise RuntimeError(f"the audit turn returned no audit: {said[:300]}")
    return response.audit


async def fabricated_quotes(index: ChunkIndex, tenant_id: UUID, response: ChatResponse, *,
                            policy_id: UUID) -> int:
    """Quotes of the turn's findings that stand in no stored chunk of their document."""
    audit = audit_of(response)
    documents = {f.target_doc_id for f in audit.findings} | {policy_id}
    texts = {d: [c.text for c in await index.document_chunks(tenant_id, d)] for d in documents}

    def stands(quote: str, document_id: UUID) -> bool:
        chunks = texts[document_id]
        return any(verify(quote, text) for text in chunks) or verify(quote, " ".join(chunks))

    quotes = [(f.target_quote, f.target_doc_id) for f in audit.findings] + [
        (f.source_quote, policy_id) for f in audit.findings if f.source_quote is not None]
    return sum(not stands(quote, document_id) for quote, document_id in quotes)


def score(response: ChatResponse, gaps: Sequence[PlantedGap], *, target_id: UUID,
          fabricated: int, seconds: float) -> dict[str, Any]:
    """The figures: recall and precision on the target the gaps belong to, the quotes, the
    engine that answered, time and spending."""
    audit = audit_of(response)
    scores = evaluate_audit(audit, gaps, target_id=target_id)
    return {"engine": response.engine.value, "overall_status": audit.overall_status,
            "gaps": scores["gaps"], "found": scores["found"], "recall": scores["recall"],
            "precision": scores["precision"], "matching_findings": scores["matching_findings"],
            "kind_agreement": scores["kind_agreement"],
            "findings_on_target": scores["findings"], "findings": len(audit.findings),
            "themes": audit.themes_analyzed, "missed": scores["missed"],
            "quotes_fabricated": fabricated,
            "quotes_dropped": response.validation.sources.dropped,
            "seconds": round(seconds, 2), "usage": response.usage.model_dump(),
            "target_recall": TARGET_RECALL,
            "met": scores["recall"] >= TARGET_RECALL and fabricated == 0}


def table_rows(figures: dict[str, Any]) -> list[list[Any]]:
    usage = figures["usage"]
    return [
        ["engine", figures["engine"]],
        ["planted gaps found", f"{figures['found']} of {figures['gaps']}"],
        ["recall (target 0.80)", figures["recall"]],
        ["precision (findings on the AML rules)",
         f"{figures['precision']} ({figures['matching_findings']} of "
         f"{figures['findings_on_target']})"],
        ["kind agreement", figures["kind_agreement"]],
        ["findings, all targets", figures["findings"]],
        ["overall status", figures["overall_status"]],
        ["missed", ", ".join(figures["missed"]) or "none"],
        ["quotes fabricated / dropped",
         f"{figures['quotes_fabricated']} / {figures['quotes_dropped']}"],
        ["seconds", figures["seconds"]],
        ["tokens in / out, cost USD",
         f"{usage['input_tokens']} / {usage['output_tokens']}, {usage['cost_usd']}"],
        ["target met", figures["met"]],
    ]
