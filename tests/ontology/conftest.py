"""Ontology fixtures on the real embedded Postgres: a tenant, the service, the demo project."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

import pytest

from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.documents_repo import PostgresDocumentStore
from regintel.adapters.postgres.ontology_repo import PostgresOntologyStore
from regintel.domain.ontology import Entity
from regintel.ontology.demo import seed_demo_project
from regintel.ontology.service import OntologyService

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
async def tenant_id(database: Database) -> UUID:
    return await PostgresDocumentStore(database).ensure_tenant("alpha")


@pytest.fixture
def service(database: Database) -> OntologyService:
    return OntologyService(PostgresOntologyStore(database))


@pytest.fixture
async def demo(service: OntologyService, tenant_id: UUID) -> dict[str, Entity]:
    return await seed_demo_project(service, tenant_id, now=NOW)
