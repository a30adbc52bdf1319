"""A real corpus for chat tests, ingested once per session through the real pipeline: the ADGM
AML and General rulebooks and the demo company AML policy (PDF), in their own database; the
chat service on top of it through the real container (offline engine)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import pytest
from pydantic import SecretStr

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.postgres.database import Database
from regintel.chat.service import ChatService
from regintel.container import Container
from regintel.domain.chat import ChatRequest, ChatResponse
from regintel.domain.documents import DocStatus, DocType, Document
from regintel.runtime.postgres import PostgresEndpoint
from regintel.settings import Settings
from tests.conftest import TEMPLATE_DB, TEST_SECRET, _throwaway_database
from tests.contract.library.conftest import build_library

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
RULEBOOKS = SHARED / "obliqa" / "rulebooks_txt"
POLICY_PDF = (Path(__file__).resolve().parents[2] / "src" / "regintel" / "demo" / "data"
              / "falcon_crest_aml_policy.pdf")


@dataclass
class Corpus:
    url: str
    tenant_id: UUID
    aml: Document
    gen: Document
    policy: Document


@pytest.fixture(scope="session")
def corpus_url(pg_endpoint: PostgresEndpoint) -> Iterator[str]:
    yield from _throwaway_database(pg_endpoint, TEMPLATE_DB)


@pytest.fixture(scope="session")
async def corpus(corpus_url: str, embedder: LocalEmbedder,
                 tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    database = Database(corpus_url, pool_size=4)
    library = await build_library(database, embedder, tmp_path_factory.mktemp("corpus-files"))
    tenant = await library.documents.ensure_tenant("acme")
    aml = await library.add(tenant, RULEBOOKS / "AML_VER09.211223.txt",
                            title="ADGM Anti-Money Laundering and Sanctions Rules",
                            version="VER09", set_name="ADGM")
    gen = await library.add(tenant, RULEBOOKS / "GEN_VER08.181223.txt",
                            title="ADGM General Rulebook", version="VER08", set_name="ADGM")
    policy = await library.add(tenant, POLICY_PDF, title="Falcon Crest AML Policy",
                               version="2026.1", doc_type=DocType.POLICY)
    assert all(d.status == DocStatus.READY for d in (aml, gen, policy))
    await library.queue.close()
    await database.dispose()
    return Corpus(corpus_url, tenant, aml, gen, policy)


@pytest.fixture(scope="session")
async def container(corpus: Corpus, data_dir: Path,
                    embedder: LocalEmbedder) -> AsyncIterator[Container]:
    settings = Settings(data_dir=data_dir, database_url=SecretStr(corpus.url),
                        secret_key=SecretStr(TEST_SECRET))
    opened = await Container.open(settings, embedder=embedder)
    yield opened
    await opened.close()


@pytest.fixture(scope="session")
async def chat(container: Container) -> ChatService:
    return await container.chat()


class Conversation:
    """A thread driven turn by turn, as a user would."""

    def __init__(self, chat: ChatService, tenant_id: UUID) -> None:
        self.chat = chat
        self.tenant_id = tenant_id
        self.thread_id: UUID | None = None

    async def ask(self, message: str = "", **fields: object) -> ChatResponse:
        request = ChatRequest.model_validate({"message": message, "thread_id": self.thread_id,
                                              **fields})
        response = await self.chat.ask(self.tenant_id, request)
        self.thread_id = response.thread_id
        return response


@pytest.fixture
def conversation(chat: ChatService, corpus: Corpus) -> Conversation:
    return Conversation(chat, corpus.tenant_id)
