"""The chat pipeline on the real local model: the packaged Qwen2.5-Coder-0.5B (the faster of
the two) served by llama.cpp's server, started by the product itself (``provider=local``) over
the chat tests' corpus. Nothing here is skipped: without llama-cpp-python or the model's
packages these tests fail and say what to install, because CI must prove the path."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.chat.service import ChatService
from regintel.container import Container
from regintel.settings import LlmSettings, LocalModelSettings, Settings
from tests.chat.conftest import Corpus
from tests.conftest import TEST_SECRET

# A short window keeps the CPU's prefill, and so the suite, short; the product's default is
# 4096.
TEST_WINDOW = 1536
TEST_OUTPUT = 256
# One thread: on this 2-core machine shared with CI runs (load 15), two llama.cpp threads
# spin-wait on each other while descheduled: measured 1.1 generated tokens/s with 2 threads
# against 6.5 with 1, and a 1,000-token prefill in 101 s against 72 s.
TEST_THREADS = 1


def local_settings(**local: object) -> LlmSettings:
    return LlmSettings(provider="local", local=LocalModelSettings.model_validate(
        {"context_tokens": TEST_WINDOW, "max_output_tokens": TEST_OUTPUT, "threads": TEST_THREADS,
         **local}))


@pytest.fixture(scope="session")
async def local_container(corpus: Corpus, data_dir: Path, embedder: LocalEmbedder,
                          local_model_path: Path) -> AsyncIterator[Container]:
    settings = Settings(data_dir=data_dir, database_url=SecretStr(corpus.url),
                        secret_key=SecretStr(TEST_SECRET),
                        llm=local_settings(model=str(local_model_path)))
    opened = await Container.open(settings, embedder=embedder)
    yield opened
    await opened.close()


@pytest.fixture(scope="session")
async def local_chat(local_container: Container) -> ChatService:
    return await local_container.chat()
