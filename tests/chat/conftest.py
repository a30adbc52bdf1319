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
from regintel.bench.llm_stub import StubBehaviour, StubServer
from regintel.chat.service import ChatService
from regintel.container import Container
from regintel.domain.chat import ChatRequest, ChatResponse
from regintel.domain.documents import DocStatus, DocType, Document
from regintel.runtime.postgres import PostgresEndpoint
from regintel.settings import LlmModel, LlmSettings, Settings
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
def stub() -> Iterator[StubServer]:
    """A local OpenAI-compatible model server (see ``regintel.bench.llm_stub``)."""
    with StubServer() as server:
        yield server


@pytest.fixture(scope="session")
async def llm_container(corpus: Corpus, data_dir: Path, embedder: LocalEmbedder,
                        stub: StubServer) -> AsyncIterator[Container]:
    """The same corpus with the LLM engine: the real adapter over the stub, marked external
    (so the egress guard runs), prices set so cost is accounted."""
    llm = LlmSettings(
        base_url=stub.base_url, api_key=SecretStr("sk-test"), external=True, timeout_s=5.0,
        models={"small": LlmModel(name="stub-small", input_usd_per_mtok=0.15,
                                  output_usd_per_mtok=0.60),
                "large": LlmModel(name="stub-large", input_usd_per_mtok=2.5,
                                  output_usd_per_mtok=10.0)})
    settings = Settings(data_dir=data_dir, database_url=SecretStr(corpus.url),
                        secret_key=SecretStr(TEST_SECRET), llm=llm)
    opened = await Container.open(settings, embedder=embedder)
    yield opened
    await opened.close()


@pytest.fixture
def behaviour(stub: StubServer) -> StubBehaviour:
    """The stub's behaviour for one test (well-behaved unless the test says otherwise)."""
    stub.behaviour = StubBehaviour()
    return stub.behaviour


@pytest.fixture(scope="session")
async def offline_chat(container: Container) -> ChatService:
    return await container.chat()


@pytest.fixture(scope="session")
async def llm_chat(llm_container: Container) -> ChatService:
    return await llm_container.chat()


@pytest.fixture(params=["offline", "llm"])
def chat(request: pytest.FixtureRequest, behaviour: StubBehaviour) -> ChatService:
    """Every conversation test runs on both engines (the LLM one over the stub model)."""
    service: ChatService = request.getfixturevalue(f"{request.param}_chat")
    return service


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
