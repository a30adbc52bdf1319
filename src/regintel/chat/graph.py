"""The chat graph of DESIGN §6: one compiled StateGraph; the engine and stores arrive in the
run's context, so the same graph serves every tenant, engine and test."""

from __future__ import annotations

from itertools import pairwise
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from regintel.chat.deps import TurnDeps
from regintel.chat.nodes import actions, memory, resolve, respond, triage, validate
from regintel.chat.state import ChatState


def _route_triage(state: ChatState) -> Literal["bundle_triage_response", "resolve_intent"]:
    skip = (state.get("triage") or {}).get("skip_llm")
    return "bundle_triage_response" if skip else "resolve_intent"


def build_graph(checkpointer: BaseCheckpointSaver[Any] | None) -> CompiledStateGraph[
        ChatState, TurnDeps, ChatState, ChatState]:
    g: StateGraph[ChatState, TurnDeps, ChatState, ChatState] = StateGraph(
        ChatState, context_schema=TurnDeps)
    nodes: dict[str, Any] = {
        "load_session": memory.load_session,
        "guardrail_input": triage.guardrail_input,
        "triage_relevance": triage.triage_relevance,
        "triage_faq": triage.triage_faq,
        "triage_intent": triage.triage_intent,
        "bundle_triage_response": triage.bundle_triage_response,
        "resolve_intent": resolve.resolve_intent,
        "resolve_documents": resolve.resolve_documents,
        "validate_inputs": resolve.validate_inputs,
        "ask_user": resolve.ask_user,
        "build_prompt": actions.build_prompt,
        "summarize": actions.summarize,
        "inquire": actions.inquire,
        "compare": actions.compare,
        "audit": actions.audit,
        "check_confidence": actions.check_confidence,
        "compose": actions.compose,
        "capture_concepts": validate.capture_concepts,
        "bundle_sources": validate.bundle_sources,
        "validate_sources": validate.validate_sources,
        "validate_tone": validate.validate_tone,
        "guardrail_output": validate.guardrail_output,
        "update_memory": memory.update_memory,
        "format_response": respond.format_response,
    }
    for name, node in nodes.items():
        g.add_node(name, node)
    _chain(g, START, "load_session", "guardrail_input", "triage_relevance", "triage_faq",
           "triage_intent")
    g.add_conditional_edges("triage_intent", _route_triage)
    g.add_edge("bundle_triage_response", "guardrail_output")
    _chain(g, "resolve_intent", "resolve_documents", "validate_inputs")
    g.add_conditional_edges("validate_inputs", resolve.route_after_validation)
    g.add_conditional_edges("ask_user", resolve.route_after_ask)
    g.add_conditional_edges("build_prompt", actions.route_action)
    for action in ("summarize", "inquire", "compare", "audit"):
        g.add_edge(action, "check_confidence")
    g.add_conditional_edges("check_confidence", actions.route_after_confidence)
    _chain(g, "compose", "capture_concepts", "bundle_sources", "validate_sources",
           "validate_tone", "guardrail_output", "update_memory", "format_response", END)
    return g.compile(checkpointer=checkpointer)


def _chain(g: StateGraph[ChatState, TurnDeps, ChatState, ChatState], *names: str) -> None:
    for a, b in pairwise(names):
        g.add_edge(a, b)
