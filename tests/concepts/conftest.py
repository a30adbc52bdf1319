"""Concept-graph fixtures on the real embedded FalkorDB and Postgres, with the chat's real
PII detector behind the ingress guard. The only fakes are the deliberately failing ones the
failure-injection tests build themselves."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from uuid import UUID

import numpy as np
import pytest

from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.adapters.postgres.context_repo import PostgresConversationContextStore
from regintel.adapters.postgres.conversations_repo import PostgresConversationStore
from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.documents_repo import PostgresDocumentStore
from regintel.adapters.postgres.public_passages import PostgresPublicPassages
from regintel.concepts.capture import EnrichmentRequest
from regintel.concepts.services import ConceptServices, build_concept_services
from regintel.domain.concepts import ConversationIdentity
from regintel.domain.documents import ChunkDraft, DocType, NewDocument
from regintel.guardrails.pii import PiiDetector
from regintel.ports.concepts import ConversationContextStore
from regintel.settings import ConceptSettings

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


class DetectorScanner:
    """``find_pii`` exactly as the chat's input guardrail computes it."""

    def __init__(self, detector: PiiDetector) -> None:
        self.detector = detector

    def find_pii(self, text: str) -> list[tuple[str, int, int]]:
        return [(f.entity_type, f.start, f.end) for f in self.detector.find(text)
                if f.entity_type != "DATE_TIME"]


@pytest.fixture(scope="session")
def pii() -> DetectorScanner:
    return DetectorScanner(PiiDetector())


@dataclass
class Enqueued:
    requests: list[EnrichmentRequest] = field(default_factory=list)

    async def __call__(self, request: EnrichmentRequest) -> None:
        self.requests.append(request)


@pytest.fixture
def enqueued() -> Enqueued:
    return Enqueued()


Build = Callable[..., ConceptServices]


@pytest.fixture
def build(graph: FalkorGraphStore, database: Database, pii: DetectorScanner,
          enqueued: Enqueued) -> Build:
    def make(*, store: object | None = None, context_store: ConversationContextStore | None = None,
             enqueue: Callable[[EnrichmentRequest], Awaitable[None]] | None = None,
             max_active_nodes: int = 20) -> ConceptServices:
        return build_concept_services(
            store or graph,  # type: ignore[arg-type]  # failing fakes stand in for the store
            pii=pii,
            context_store=context_store or PostgresConversationContextStore(database),
            settings=ConceptSettings(max_active_nodes=max_active_nodes),
            shared_data_dir=SHARED, public_sources=[PostgresPublicPassages(database)],
            enqueue=enqueue or enqueued)
    return make


@pytest.fixture
def services(build: Build) -> ConceptServices:
    return build()


@dataclass
class Tenancy:
    tenant_id: UUID
    conversations: PostgresConversationStore
    documents: PostgresDocumentStore

    async def conversation(self) -> ConversationIdentity:
        conv = await self.conversations.create(self.tenant_id, title="concepts")
        return ConversationIdentity(tenant_id=self.tenant_id, conversation_id=conv.id)

    async def document(self, title: str, texts: list[str], *, public: bool,
                       database: Database) -> UUID:
        doc = await self.documents.create(self.tenant_id, NewDocument(
            title=title, doc_type=DocType.REGULATION, content_hash=title,
            file_path=f"files/{title}", original_filename=f"{title}.txt",
            mime_type="text/plain", size_bytes=1))
        chunks = [ChunkDraft(ordinal=i, text=x, page_start=1, page_end=1, char_start=0,
                             char_end=len(x), clause=f"{i + 1}.1") for i, x in enumerate(texts)]
        await self.documents.publish_chunks(self.tenant_id, doc.id, chunks,
                                            np.zeros((len(texts), 384), dtype=np.float32),
                                            embedding_model="test")
        if public:
            from sqlalchemy import update

            from regintel.adapters.postgres import tables as t

            async with database.system_session() as s:
                await s.execute(update(t.documents).where(t.documents.c.id == doc.id)
                                .values(is_public=True))
        return doc.id


@pytest.fixture
async def tenancy(database: Database) -> Tenancy:
    documents = PostgresDocumentStore(database)
    tenant = await documents.ensure_tenant("acme")
    return Tenancy(tenant, PostgresConversationStore(database), documents)
