"""Nothing a tenant owns reaches the shared graph: a conversation full of e-mails, phone
numbers, ids and chat text is captured, then every property of every node and edge is
scanned for it; the guard's refusals are in the log."""

from __future__ import annotations

import logging
import uuid

import pytest

from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.concepts.extractor import SourceText
from regintel.concepts.services import ConceptServices
from regintel.guardrails.pii import ner_model_installed
from tests.concepts.conftest import Tenancy
from tests.concepts.turns import run_turn


async def test_no_personal_data_ids_or_chat_text_reach_the_graph(
        services: ConceptServices, graph: FalkorGraphStore, tenancy: Tenancy,
        caplog: pytest.LogCaptureFixture) -> None:
    identity = await tenancy.conversation()
    tenant, conversation, user = (str(identity.tenant_id), str(identity.conversation_id),
                                  str(uuid.uuid4()))
    secrets = ["jane.doe@example.com", "+44 20 7946 0958", "GB82 WEST 1234 5698 7654 32",
               tenant, conversation, user, "user_id=48213", "Mr John Smith",
               "4111 1111 1111 1111", "Can I onboard my uncle without checks",
               "01HZX3V6N6QW8J6WQ5G4T2M9RB"]
    payload = {"concepts": [
        {"domain": "AML", "kind": "CDD", "jurisdiction": "ADGM",
         "prefLabel": "Customer Due Diligence",
         "altLabels": ["CDD", "jane.doe@example.com", "Mr John Smith", f"case {tenant}",
                       "Can I onboard my uncle without checks?", "user_id=48213"],
         "definition": "Checks on a customer, e-mail jane.doe@example.com, "
                       "tel +44 20 7946 0958.",
         "sourceUrls": [f"https://example.com/c/{conversation}",
                        "https://www.adgm.com/aml"]},
        {"domain": "AML", "kind": "CUSTOMER_OF_JANE", "jurisdiction": "ADGM",
         "prefLabel": "jane.doe@example.com"},
        {"domain": "AML", "kind": tenant, "jurisdiction": "ADGM", "prefLabel": "tenant"},
        {"domain": "AML", "kind": "IBAN", "jurisdiction": "ADGM",
         "prefLabel": "GB82 WEST 1234 5698 7654 32"},
        {"domain": "AML", "kind": "CARD", "jurisdiction": "ADGM",
         "prefLabel": "card 4111 1111 1111 1111"},
        {"domain": "AML", "kind": "QUESTION", "jurisdiction": "ADGM",
         "prefLabel": "Can I onboard my uncle without checks?"},
        {"domain": "AML", "kind": "ULID", "jurisdiction": "ADGM",
         "prefLabel": "01HZX3V6N6QW8J6WQ5G4T2M9RB"},
        {"domain": "AML", "kind": "CHAT", "jurisdiction": "ADGM",
         "prefLabel": "my client Mr John Smith called from +44 20 7946 0958 yesterday "
                      "about his account and asked whether we can skip the checks"},
    ]}
    with caplog.at_level(logging.WARNING):
        turn = await run_turn(services, identity, "Hi, I'm Mr John Smith "
                              "(jane.doe@example.com). Can I onboard my uncle without checks?",
                              payload=payload)
        # The offline extractor over the same chat text plus a cited passage.
        await run_turn(services, identity,
                       f"My id is {user}; call +44 20 7946 0958. What is CDD?",
                       answer=f"Conversation {conversation}: CDD applies.",
                       sources=[SourceText(
                           "'Customer Due Diligence' means the identification and "
                           "verification of a customer and its beneficial owner.",
                           title="ADGM AML Rulebook")])
    assert turn.referenced == ["concept:AML:CDD:ADGM"]  # the real concept survived

    nodes, edges = await graph.dump()
    values = [str(v) for n in nodes for v in [n.key, *n.labels, *n.properties.values()]]
    values += [str(v) for e in edges for v in [e.src_key, e.dst_key, *e.properties.values()]]
    blob = "\n".join(values).lower()
    for secret in secrets:
        assert secret.lower() not in blob, secret
    for fragment in ("jane", "7946", "48213", "uncle", "john"):
        assert fragment not in blob
    node = (await graph.get_nodes("Concept", ["concept:AML:CDD:ADGM"]))[0]
    assert node.properties["altLabels"] == ["CDD"]
    assert node.properties["sourceUrls"] == ["https://www.adgm.com/aml"]
    assert "definition" not in node.properties  # it carried an e-mail and a phone number
    assert {n.key for n in nodes} == {"concept:AML:CDD:ADGM"}

    refusals = [r.getMessage() for r in caplog.records if "graph ingress refused" in r.getMessage()]
    assert refusals and services.guard.refusals["pii"] >= 2
    assert services.guard.refusals["identifiers"] >= 2
    assert services.guard.refusals["chat_text"] >= 2
    for message in refusals:  # refusals say why, never what
        assert "jane" not in message and tenant not in message


@pytest.mark.skipif(not ner_model_installed(),
                    reason="names without an honorific need the spaCy model en_core_web_sm")
async def test_bare_names_are_refused_when_the_ner_model_is_installed(
        services: ConceptServices, graph: FalkorGraphStore) -> None:
    result = await services.handler.handle({"concepts": [
        {"domain": "AML", "kind": "CDD", "jurisdiction": "ADGM",
         "prefLabel": "Customer Due Diligence", "altLabels": ["Jonathan Whitfield"]}]})
    assert result.referencedNodeIds == ["concept:AML:CDD:ADGM"]
    node = (await graph.get_nodes("Concept", ["concept:AML:CDD:ADGM"]))[0]
    assert node.properties["altLabels"] == []
