"""`regintel demo`'s start-up on the real stores (jobs queued, not run): the printed login
works and is already onboarded, the concept graph holds the GDPR and AI Act definitions, the
demo project exists once however often the demo starts, and the demo corpus is queued."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.api.app import DEMO_TENANT, create_app
from regintel.demo.account import demo_login
from regintel.ontology.demo import DEMO_PROJECT_NAME
from regintel.runtime.postgres import PostgresEndpoint
from regintel.settings import Settings
from tests.api.conftest import client_for
from tests.conftest import TEMPLATE_DB, TEST_SECRET, _throwaway_database

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


@pytest.fixture
def demo_db(pg_endpoint: PostgresEndpoint) -> Iterator[str]:
    yield from _throwaway_database(pg_endpoint, TEMPLATE_DB)


@pytest.mark.skipif(not SHARED.exists(), reason="../shared/data is not beside the project")
async def test_demo_start_seeds_everything_once(demo_db: str, tmp_path: Path,
                                                embedder: LocalEmbedder) -> None:
    settings = Settings(data_dir=tmp_path, database_url=SecretStr(demo_db),
                        secret_key=SecretStr(TEST_SECRET), demo=True, demo_data_dir=SHARED)
    email, password = demo_login(tmp_path)
    for _ in range(2):  # a second start finds everything in place
        app = create_app(settings, run_worker=False, embedder=embedder)
        async with app.router.lifespan_context(app), client_for(app) as client:
            container = app.state.container
            login = await client.post("/api/auth/login",
                                      json={"email": email, "password": password})
            assert login.status_code == 200, login.text
            me = (await client.get("/api/me")).json()
            assert me["onboarding_complete"] is True
            tenant = await container.documents.ensure_tenant(DEMO_TENANT)
            titles = {d.title for d in await container.documents.list(tenant)}
            assert any("GDPR" in t for t in titles) and len(titles) >= 4
            projects = await container.projects.loader.projects(tenant)
            assert [p.label for p in projects] == [DEMO_PROJECT_NAME]
            services = await container.concepts()
            found = await services.client.concepts_by_label(["personal data"])
            assert found and "definition" in found[0].properties
    assert demo_login(tmp_path) == (email, password)
