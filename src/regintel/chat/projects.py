"""A thread scoped to a compliance project (project-context spec): the project's bounded
snapshot becomes a prompt aspect, and questions about the project itself ("which high risks
have no mitigation?", "what is blocking goal X?") are answered from the snapshot and the detail
tools, every entity cited by id. Loading the project is best effort: a failure is logged and
the turn goes on without it."""

from __future__ import annotations

import logging

from regintel.chat.deps import TurnDeps
from regintel.domain.ontology import ProjectAnswer
from regintel.ontology.answers import answer_project_question
from regintel.ontology.payloads import project_payload
from regintel.ontology.tools import TOOL_SCHEMAS
from regintel.ports.llm import ToolSpec

log = logging.getLogger(__name__)
ASPECT_TOKENS = 3000  # the project block's share of the prompt
ASPECT_HEADING = "## Compliance project in scope"


async def load(deps: TurnDeps) -> bool:
    """Load the thread's project into ``deps.project``; False when it could not be loaded."""
    if deps.project_id is None or deps.projects is None:
        return True
    try:
        with deps.timed("project"):
            deps.project = await deps.projects.loader.load(deps.tenant_id, deps.project_id)
    except Exception:  # the project grounds the answer; it must not cost the user the answer
        log.exception("project %s could not be loaded", deps.project_id)
        return False
    return True


def offer_tools(deps: TurnDeps) -> None:
    """The project's detail tools, for an engine that can call them."""
    if deps.project is None or deps.projects is None:
        return
    specs = [ToolSpec(name=t["function"]["name"], description=t["function"]["description"],
                      parameters=t["function"]["parameters"]) for t in TOOL_SCHEMAS]
    deps.engine.offer_tools(specs, deps.projects.tools(deps.tenant_id, deps.project).call)


def aspect(deps: TurnDeps) -> str | None:
    if deps.project is None:
        return None
    payload = project_payload(deps.project, token_budget=ASPECT_TOKENS)
    return (f"{ASPECT_HEADING}\nThe user works in this project; cite its entities as "
            f"[kind:id] when you use them.\n{payload.text}")


async def answer(deps: TurnDeps, question: str) -> ProjectAnswer | None:
    if deps.project is None or deps.projects is None:
        return None
    try:
        with deps.timed("project"):
            return await answer_project_question(
                question, deps.project, deps.projects.tools(deps.tenant_id, deps.project))
    except Exception:
        log.exception("project question could not be answered from the project graph")
        return None
