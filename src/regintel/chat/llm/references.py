"""The model's reading of a message's references to documents, checked against the documents
in play and mapped to a ``ReferenceResolution``; an answer that names documents not in play, or
claims a confidence it cannot back, fails the step (the offline engine resolves instead)."""

from __future__ import annotations

from collections.abc import Sequence

from regintel.chat.engine import ReferenceResolution
from regintel.chat.llm import prompts as p
from regintel.chat.llm.reports import StepFailed
from regintel.chat.state import DocRef
from regintel.domain.documents import Document


def resolution(out: p.ReferencesOutput, explicit: Sequence[Document],
                registry: Sequence[DocRef]) -> ReferenceResolution:
    in_play = {r["id"] for r in registry}
    invented = [i for i in out.inferred_doc_ids if i not in in_play]
    if invented:
        raise StepFailed(f"inferred ids not in the conversation: {invented}")
    tagged = {str(d.id) for d in explicit}
    inferred = list(dict.fromkeys(i for i in out.inferred_doc_ids if i not in tagged))
    if not out.has_implicit_refs:
        return ReferenceResolution(False, [], "none", out.reasoning)
    if out.inferred_doc_ids and not inferred:  # "this regulation" with @it tagged
        return ReferenceResolution(False, [], "none", out.reasoning)
    match out.inference_confidence:
        case "high":
            if not inferred:
                raise StepFailed("high confidence without an inferred document")
            return ReferenceResolution(True, inferred, "high", out.reasoning)
        case "medium":
            if not inferred:
                raise StepFailed("medium confidence without candidates")
            return ReferenceResolution(True, [], "medium", out.reasoning, candidates=inferred)
        case "low":
            return ReferenceResolution(True, [], "low", out.reasoning,
                                       unmatched=out.unmatched_name,
                                       unmatched_kind=out.unmatched_kind)
