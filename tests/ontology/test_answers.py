"""The offline project answerer on the demo project, the detail tools, the context payloads,
and an audit finding turned into work that shows up in the next snapshot."""

from __future__ import annotations

import json
import math
import uuid
from uuid import UUID

import pytest
from sqlalchemy import text

from regintel.adapters.postgres.database import Database
from regintel.domain.chat import AuditFinding, Citation
from regintel.domain.ontology import Entity, EntityKind, PayloadKind
from regintel.errors import InvalidRequest, NotFound
from regintel.ontology.answers import answer_project_question
from regintel.ontology.loader import ProjectContext
from regintel.ontology.payloads import focus_payload, global_payload, project_payload
from regintel.ontology.service import OntologyService
from regintel.ontology.tools import TOOL_SCHEMAS
from tests.ontology.conftest import NOW

K = EntityKind


async def _ctx(service: OntologyService, tenant_id: UUID,
               demo: dict[str, Entity]) -> ProjectContext:
    return await service.loader.load(tenant_id, demo["project"].id, now=NOW)


async def _ask(service: OntologyService, tenant_id: UUID, demo: dict[str, Entity],
               question: str) -> tuple[str, set[UUID]] | None:
    ctx = await _ctx(service, tenant_id, demo)
    answer = await answer_project_question(question, ctx, service.tools(tenant_id, ctx))
    if answer is None:
        return None
    for entity_id in answer.entity_ids:  # every id used is cited in the text
        assert f"{ctx.index[entity_id].kind.value}:{entity_id}]" in answer.text
    return answer.text, set(answer.entity_ids)


async def test_unmitigated_high_risks(service: OntologyService, tenant_id: UUID,
                                      demo: dict[str, Entity]) -> None:
    got = await _ask(service, tenant_id, demo, "Which high risks have no mitigation?")
    assert got is not None
    text_, ids = got
    assert f"[risk:{demo['risk_backlog'].id}]" in text_
    # Mitigated by a (blocked) task, by an in-progress task, or only medium impact:
    for key in ("risk_pep", "risk_records", "risk_training"):
        assert demo[key].id not in ids, key


async def test_what_blocks_a_goal(service: OntologyService, tenant_id: UUID,
                                  demo: dict[str, Entity]) -> None:
    got = await _ask(service, tenant_id, demo,
                     "What is blocking the customer due diligence goal?")
    assert got is not None
    text_, ids = got
    assert {demo[k].id for k in ("goal_cdd", "task_rescreen", "task_vendor", "task_edd_proc",
                                 "ms_screening", "risk_pep")} <= ids
    assert "vendor RCA data feed not delivered" in text_  # from the task's detail tool
    assert demo["goal_str"].id not in ids


async def test_overdue_open_requirements_and_not_about_the_project(
        service: OntologyService, tenant_id: UUID, demo: dict[str, Entity]) -> None:
    overdue = await _ask(service, tenant_id, demo, "What tasks are overdue?")
    assert overdue is not None
    assert overdue[1] - {demo["project"].id} == {
        demo[k].id for k in ("task_rescreen", "task_vendor", "task_edd_proc")}
    reqs = await _ask(service, tenant_id, demo, "What are the open requirements?")
    assert reqs is not None
    # Record keeping is open: the demo policy keeps records five years, the rules six.
    assert {demo[k].id for k in ("req_ra", "req_edd", "req_str", "req_records")} <= reqs[1]
    blocked = await _ask(service, tenant_id, demo, "Which tasks are blocked?")
    assert blocked is not None and {demo["task_rescreen"].id, demo["task_triage"].id,
                                    demo["task_hire"].id} <= blocked[1]
    for regulatory in ("How long must CDD records be kept under the AML rules?",
                       "How should a firm mitigate the risk of money laundering?",
                       "What are the requirements for ongoing customer monitoring?",
                       "What are the penalties for late filing of an STR?",
                       "What decisions must the MLRO make?",
                       "Which transactions must be blocked under sanctions rules?"):
        assert await _ask(service, tenant_id, demo, regulatory) is None, regulatory
    status = await _ask(service, tenant_id, demo, "How is the project progressing?")
    assert status is not None and demo["goal_cdd"].id in status[1]
    decisions = await _ask(service, tenant_id, demo, "What decisions have we made?")
    assert decisions is not None and demo["decision_mlro"].id in decisions[1]


async def test_open_tasks_and_the_urgent_ones(service: OntologyService, tenant_id: UUID,
                                              demo: dict[str, Entity]) -> None:
    open_work = {"task_rescreen", "task_vendor", "task_triage", "task_hire", "task_edd_proc",
                 "task_retention", "task_archive"}  # task_bra is done
    every = await _ask(service, tenant_id, demo, "Which tasks are still open?")
    assert every is not None
    assert every[1] - {demo["project"].id} == {demo[k].id for k in open_work}
    urgent = await _ask(service, tenant_id, demo, "What are the open high-priority tasks?")
    assert urgent is not None
    assert urgent[1] - {demo["project"].id} == {demo[k].id for k in open_work - {"task_archive"}}
    assert urgent[0].startswith("6 open high-priority task(s)")
    assert await _ask(service, tenant_id, demo, "What tasks must the MLRO perform when an "
                      "account is opened?") is None  # a question for the regulations


async def test_detail_tools(service: OntologyService, tenant_id: UUID,
                            demo: dict[str, Entity]) -> None:
    tools = service.tools(tenant_id)  # no context: reads from the store
    names = {s["function"]["name"] for s in TOOL_SCHEMAS}
    assert {"get_risk_details", "get_task_details", "get_entity_relationships",
            "get_project_graph_full"} <= names
    risk = await tools.call("get_risk_details", {"id": str(demo["risk_pep"].id)})
    assert risk["title"].startswith("PEP screening") and risk["impact"] == "high"
    rels = await tools.get_entity_relationships(demo["risk_pep"].id)
    assert {(r["rel"], r["direction"], r["other_id"]) for r in rels} >= {
        ("mitigates", "in", str(demo["task_rescreen"].id)),
        ("threatens", "out", str(demo["goal_cdd"].id))}
    graph = await tools.get_project_graph_full(demo["project"].id)
    assert len(graph["nodes"]) == len(demo) and graph["coverage"]["goals"]["unlinked"] == 1
    with pytest.raises(NotFound):
        await tools.get_task_details(demo["risk_pep"].id)  # wrong kind
    with pytest.raises(InvalidRequest):
        await tools.call("drop_tables", {})


async def test_context_payloads(service: OntologyService, tenant_id: UUID,
                                demo: dict[str, Entity]) -> None:
    ctx = await _ctx(service, tenant_id, demo)
    workspace = project_payload(ctx)
    data = json.loads(workspace.text)
    assert workspace.kind is PayloadKind.PROJECT and workspace.tokens == math.ceil(
        len(workspace.text) / 4)
    assert data["project"]["name"] == "AML programme 2026"
    assert data["project"]["entity_counts"]["risks"] == 4
    assert data["graph"]["root_id"] == str(demo["project"].id)
    assert data["graph"]["coverage"]["goals"] == {"total": 3, "direct": 2, "unlinked": 1}
    assert any("goals are not linked" in n for n in data["coverage_diagnostics"])
    assert {n["id"] for n in data["graph"]["nodes"]} >= {str(demo["risk_backlog"].id)}

    small = project_payload(ctx, token_budget=workspace.tokens - 1)
    assert small.tokens < workspace.tokens
    small_data = json.loads(small.text)
    assert small_data["graph"] == data["graph"]  # only the slices shrink
    tasks = small_data["entities"]["tasks"]
    assert len(tasks["items"]) == 5 and tasks["more"] == 3

    focus = json.loads(focus_payload(ctx, demo["goal_cdd"].id, include_graph=True).text)
    assert focus["focus"]["id"] == str(demo["goal_cdd"].id) and focus["focus"]["kind"] == "goal"
    assert focus["focus"]["total_tasks"] == 3 and focus["focus"]["completed_tasks"] == 1
    linked = {e["id"] for e in focus["linked"]}
    assert str(demo["task_rescreen"].id) in linked and "graph" in focus

    listing = global_payload(await service.loader.projects(tenant_id))
    assert [p["name"] for p in json.loads(listing.text)["projects"]] == ["AML programme 2026"]


async def test_finding_becomes_a_task_in_the_next_snapshot(
        database: Database, service: OntologyService, tenant_id: UUID,
        demo: dict[str, Entity]) -> None:
    regulation, chunk = uuid.uuid4(), uuid.uuid4()
    async with database.system_session() as s:
        await s.execute(text(
            "INSERT INTO documents (id, tenant_id, title, doc_type, content_hash, file_path, "
            "original_filename, mime_type, size_bytes) VALUES (:d, :t, 'AML Rulebook', "
            "'regulation', 'h', 'f', 'f.pdf', 'application/pdf', 1)"),
            {"d": regulation, "t": tenant_id})
    # The target is the regulation the policy (the source) is audited against.
    finding = AuditFinding(
        target_doc_id=regulation, target_doc_title="AML Rulebook",
        theme="Record keeping", kind="gap", severity="High",
        consequence="The policy keeps CDD records for three years, not six.",
        source_quote="Records are kept for three years.",
        target_quote="records must be kept for at least six years",
        suggestion="Keep records six years.", confidence_score=0.8, citations=[2])
    citations = [
        Citation(n=1, title="Other", quote="x", document_id=uuid.uuid4()),
        Citation(n=2, document_id=regulation, chunk_id=chunk, title="AML Rulebook", page=12,
                 clause="8.3.1", quote="records must be kept for at least six years")]
    project_id = demo["project"].id
    task = await service.work_from_finding(tenant_id, project_id, finding, citations, "task")
    assert task.data["priority"] == 2 and task.data["props"]["source_chunk_id"] == str(chunk)
    assert task.data["props"]["source_clause"] == "8.3.1"

    ctx = await service.loader.load(tenant_id, project_id, now=NOW)
    assert task.id in {n.id for n in ctx.snapshot.nodes}
    entry = next(d for d in ctx.members[K.DOCUMENT] if d.data["document_id"] == regulation)
    assert ctx.is_direct(task.id) and ctx.is_direct(entry.id)
    assert entry in ctx.neighbours(task.id, rel="references")
    # A second finding on the same regulation reuses the document entry.
    risk = await service.work_from_finding(tenant_id, project_id, finding, citations, "risk")
    assert risk.data["impact"] == "high"
    assert ('AML Rulebook: "records must be kept for at least six years…"' in
            risk.data["content"])
    assert 'Policy says: "Records are kept for three years."' in risk.data["content"]
    ctx = await service.loader.load(tenant_id, project_id, now=NOW)
    assert sum(1 for d in ctx.members[K.DOCUMENT] if d.data["document_id"] == regulation) == 1

    with pytest.raises(InvalidRequest, match="cites no regulation chunk"):
        await service.work_from_finding(tenant_id, project_id,
                                        finding.model_copy(update={"citations": [9]}),
                                        citations)
    with pytest.raises(InvalidRequest, match="requirement, risk or task"):
        await service.work_from_finding(tenant_id, project_id, finding, citations, "goal")


async def test_demo_links_library_regulations(database: Database, service: OntologyService,
                                              tenant_id: UUID) -> None:
    from regintel.ontology.demo import seed_demo_project

    regulation = uuid.uuid4()
    async with database.system_session() as s:
        await s.execute(text(
            "INSERT INTO documents (id, tenant_id, title, doc_type, content_hash, file_path, "
            "original_filename, mime_type, size_bytes) VALUES (:d, :t, 'ADGM AML Rulebook', "
            "'regulation', 'h2', 'f', 'f.pdf', 'application/pdf', 1)"),
            {"d": regulation, "t": tenant_id})
    made = await seed_demo_project(service, tenant_id, regulation_ids=[regulation], now=NOW)
    doc = made["document_0"]
    assert doc.data["title"] == "ADGM AML Rulebook" and doc.data["document_id"] == regulation
    ctx = await service.loader.load(tenant_id, made["project"].id, now=NOW)
    referencing = {e.id for e in ctx.neighbours(doc.id, K.REQUIREMENT, rel="references")}
    assert referencing == {made[k].id for k in ("req_ra", "req_edd", "req_str", "req_records")}


async def test_a_question_of_two_parts_gets_both_with_states_in_words(
        service: OntologyService, tenant_id: UUID, demo: dict[str, Entity]) -> None:
    both = await _ask(service, tenant_id, demo,
                      "What tasks are overdue, and which high risks have no mitigation?")
    assert both is not None
    text_, ids = both
    assert demo["task_rescreen"].id in ids and demo["risk_backlog"].id in ids
    assert len(text_.split("\n\n")) == 2  # one paragraph for each part asked
    status = await _ask(service, tenant_id, demo, "What is the project status?")
    assert status is not None
    for answer in (text_, status[0]):
        assert "in_progress" not in answer and "due no due date" not in answer
    assert "in progress" in text_ + status[0]
