"""One chat turn's concept work, in the order the chat graph runs it (spec §4.2 of the
conversation-context spec): load context → prompt aspect → answer → capture → save, through
``ConceptServices.begin_turn`` / ``finish_turn`` — the calls the chat pipeline makes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from regintel.concepts.extractor import SourceText
from regintel.concepts.services import ConceptServices
from regintel.domain.concepts import ConversationContext, ConversationIdentity


@dataclass
class Turn:
    aspect: str | None
    referenced: list[str]
    context: ConversationContext
    answer: str


async def run_turn(services: ConceptServices, identity: ConversationIdentity, question: str,
                   *, answer: str = "An answer grounded in the cited sources.",
                   sources: Sequence[SourceText] = (), payload: object | None = None) -> Turn:
    start = await services.begin_turn(identity)
    done = await services.finish_turn(identity, start, payload=payload, question=question,
                                      answer=answer, sources=sources)
    return Turn(start.aspect, done.referenced_nodes, done.context, answer)
