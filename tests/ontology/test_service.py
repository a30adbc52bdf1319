"""Service validation (before the database) and the database's own refusals (after it)."""

from __future__ import annotations

import uuid
from typing import Any
from uuid import UUID

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from regintel.adapters.postgres.database import Database
from regintel.adapters.postgres.documents_repo import PostgresDocumentStore
from regintel.domain.ontology import RELATION_RULES, EntityKind
from regintel.errors import InvalidRequest, NotFound
from regintel.ontology.service import OntologyService

K = EntityKind


async def _project(service: OntologyService, tenant_id: UUID, name: str = "P") -> UUID:
    return (await service.create_project(tenant_id, {"name": name})).id


async def test_relation_rules_table_matches_the_domain_constant(
        service: OntologyService) -> None:
    stored = await service.store.relation_rules()  # type: ignore[attr-defined]
    assert stored == {(s.value, r, d.value) for s, r, d in RELATION_RULES}


async def test_create_links_to_project_by_default_and_validates_fields(
        service: OntologyService, tenant_id: UUID) -> None:
    pid = await _project(service, tenant_id)
    risk = await service.create_entity(tenant_id, pid, K.RISK, {
        "title": "Sanctions screening gap", "impact": "high", "probability": "0.4",
        "props": '{"owner": "MLRO"}'})
    assert risk.data["impact"] == "high" and risk.data["props"] == {"owner": "MLRO"}
    assert risk.data["state_key"] == "open"  # the kind's default state
    edges = await service.store.edges_of(tenant_id, risk.id)
    assert [(e.src_id, e.rel) for e in edges] == [(pid, "has_risk")]
    quiet = await service.create_entity(tenant_id, pid, K.TASK, {"title": "t"},
                                        link_to_project=False)
    assert await service.store.edges_of(tenant_id, quiet.id) == []

    bad: list[tuple[K, dict[str, Any], str]] = [
        (K.RISK, {"title": "x", "impact": "huge"}, "impact must be one of"),
        (K.RISK, {"title": "x", "probability": 2}, "probability must be between"),
        (K.TASK, {"title": "x", "priority": 9}, "priority must be 1"),
        (K.TASK, {"title": "x", "due_at": "next week"}, "not a date"),
        (K.TASK, {"title": "x", "colour": "red"}, "unknown task field"),
        (K.TASK, {"description": "no title"}, "needs a title"),
        (K.GOAL, {"name": "x", "props": "[1, 2]"}, "must be a JSON object"),
    ]
    for kind, fields, message in bad:
        with pytest.raises(InvalidRequest, match=message):
            await service.create_entity(tenant_id, pid, kind, fields)


async def test_link_validation(service: OntologyService, tenant_id: UUID) -> None:
    pid = await _project(service, tenant_id)
    other_pid = await _project(service, tenant_id, "Other")
    task = await service.create_entity(tenant_id, pid, K.TASK, {"title": "Fix screening"})
    risk = await service.create_entity(tenant_id, pid, K.RISK, {"title": "Screening gap"})
    goal = await service.create_entity(tenant_id, pid, K.GOAL, {"name": "Clean book"})
    elsewhere = await service.create_entity(tenant_id, other_pid, K.RISK, {"title": "Other"})

    edge = await service.link(tenant_id, task.id, "mitigates", risk.id)
    assert (edge.src_kind, edge.rel, edge.dst_kind) == (K.TASK, "mitigates", K.RISK)
    with pytest.raises(InvalidRequest, match="already exists"):
        await service.link(tenant_id, task.id, "mitigates", risk.id)
    with pytest.raises(InvalidRequest, match="not an allowed relation") as bad_rel:
        await service.link(tenant_id, task.id, "threatens", goal.id)
    assert bad_rel.value.hint is not None and "supports_goal" in bad_rel.value.hint
    with pytest.raises(InvalidRequest, match="not an allowed relation"):
        await service.link(tenant_id, goal.id, "mitigates", risk.id)
    with pytest.raises(NotFound):
        await service.link(tenant_id, task.id, "mitigates", uuid.uuid4())
    with pytest.raises(InvalidRequest, match="different projects"):
        await service.link(tenant_id, task.id, "mitigates", elsewhere.id)

    # A soft-deleted end is gone for the service, and its edges leave the context.
    await service.delete_entity(tenant_id, risk.id)
    with pytest.raises(NotFound):
        await service.link(tenant_id, goal.id, "threatens", risk.id)
    ctx = await service.loader.load(tenant_id, pid)
    assert risk.id not in ctx.index and all(risk.id not in (e.src_id, e.dst_id)
                                            for e in ctx.edges)
    assert ctx.coverage["risks"].total == 0


async def test_update_touches_updated_at_and_refuses_unknown_ids(
        service: OntologyService, tenant_id: UUID) -> None:
    pid = await _project(service, tenant_id)
    task = await service.create_entity(tenant_id, pid, K.TASK, {"title": "Draft policy"})
    updated = await service.update_entity(tenant_id, task.id, {"state_key": "done"})
    assert updated.data["state_key"] == "done"
    assert updated.data["updated_at"] >= task.data["updated_at"]
    with pytest.raises(InvalidRequest, match="nothing to update"):
        await service.update_entity(tenant_id, task.id, {})
    with pytest.raises(NotFound):
        await service.update_entity(tenant_id, uuid.uuid4(), {"title": "x"})
    with pytest.raises(NotFound):
        await service.project(tenant_id, task.id)


async def test_database_refuses_edges_across_projects_tenants_and_rules(
        database: Database, service: OntologyService, tenant_id: UUID) -> None:
    """The second wall: raw inserts that skip the service are refused by the schema."""
    beta = await PostgresDocumentStore(database).ensure_tenant("beta")
    pid = await _project(service, tenant_id)
    other_pid = await _project(service, tenant_id, "Other")
    beta_pid = await _project(service, beta, "Beta")
    task = await service.create_entity(tenant_id, pid, K.TASK, {"title": "t"})
    risk = await service.create_entity(tenant_id, pid, K.RISK, {"title": "r"})
    other_risk = await service.create_entity(tenant_id, other_pid, K.RISK, {"title": "o"})
    beta_risk = await service.create_entity(beta, beta_pid, K.RISK, {"title": "b"})
    insert = text("INSERT INTO onto_edges (tenant_id, project_id, src_id, src_kind, rel, "
                  "dst_id, dst_kind) VALUES (:t, :p, :s, :sk, :r, :d, :dk)")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"d": beta_risk.id}, "belongs to another tenant"),
        ({"d": other_risk.id}, "belongs to another project"),
        ({"d": uuid.uuid4()}, "does not exist"),
        ({"d": risk.id, "r": "threatens"}, "onto_edges_rule_fkey"),
        ({"d": risk.id, "dk": "goal", "r": "supports_goal"}, "does not exist"),
    ]
    for override, message in cases:
        values = {"t": tenant_id, "p": pid, "s": task.id, "sk": "task", "r": "mitigates",
                  "dk": "risk", **override}
        with pytest.raises(DBAPIError, match=message):
            async with database.system_session() as s:
                await s.execute(insert, values)
    # Through a tenant session the other tenant's risk is not even visible.
    with pytest.raises(DBAPIError, match="does not exist"):
        async with database.tenant_session(tenant_id) as s:
            await s.execute(insert, {"t": tenant_id, "p": pid, "s": task.id, "sk": "task",
                                     "r": "mitigates", "d": beta_risk.id, "dk": "risk"})
    # Nor can an edge row claim the other tenant's id (the guard, else RLS WITH CHECK).
    with pytest.raises(DBAPIError, match=r"does not exist|row-level security"):
        async with database.tenant_session(tenant_id) as s:
            await s.execute(insert, {"t": beta, "p": beta_pid, "s": beta_pid,
                                     "sk": "project", "r": "has_risk", "d": beta_risk.id,
                                     "dk": "risk"})
    # The application role may read the relation rules but never change them.
    with pytest.raises(DBAPIError, match="permission denied"):
        async with database.tenant_session(tenant_id) as s:
            await s.execute(text("INSERT INTO onto_relation_rules VALUES ('goal', 'x', 'risk')"))


async def test_tenant_scoping_of_reads(service: OntologyService, tenant_id: UUID,
                                       database: Database) -> None:
    beta = await PostgresDocumentStore(database).ensure_tenant("beta")
    pid = await _project(service, tenant_id)
    task = await service.create_entity(tenant_id, pid, K.TASK, {"title": "t"})
    assert await service.store.get(beta, task.id) is None
    assert await service.store.projects(beta) == []
    with pytest.raises(NotFound):
        await service.loader.load(beta, pid)
    with pytest.raises(NotFound):
        await service.create_entity(beta, pid, K.TASK, {"title": "sneaky"})
