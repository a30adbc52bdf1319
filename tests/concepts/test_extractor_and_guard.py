"""The offline extractor's patterns, and each ingress-guard aspect on its own."""

from __future__ import annotations

import pytest

from regintel.concepts.capture import CAPTURE_CONCEPTS_SCHEMA
from regintel.concepts.extractor import ConceptExtractor, KnownConcept, SourceText, defined_terms
from regintel.concepts.guard import GraphWriteRefused, IngressGuard, WriteRequest
from regintel.domain.concepts import CapturedConcept
from tests.concepts.conftest import Build


@pytest.mark.parametrize(("text", "term", "starts"), [
    ("'Customer Due Diligence' means the process of identifying a customer;",
     "Customer Due Diligence", "the process of identifying"),
    ("“personal data” means any information relating to a natural person.",
     "personal data", "any information"),
    ("In these Rules 'Relevant Person' shall mean a firm to which the Rules apply.",
     "Relevant Person", "a firm to which"),
    ("For the purposes of this Regulation, ‘consent’ of the data subject means any freely "
     "given indication.", "consent", "any freely given"),
    ("(12) Beneficial Owner shall mean a natural person who ultimately owns the customer.",
     "Beneficial Owner", "a natural person who"),
    ("Eligible Depositor \tmeans a person who, at the relevant time, is a creditor of a bank.",
     "Eligible Depositor", "a person who"),
    ("Crisis Management Measure\tmeans—\n(a)\ta resolution action;", "Crisis Management Measure",
     ""),
])
def test_defined_term_patterns(text: str, term: str, starts: str) -> None:
    found = defined_terms(text)
    assert [t.term for t in found] == [term]
    assert found[0].definition.startswith(starts)


def test_no_definition_in_ordinary_prose() -> None:
    assert defined_terms("This means that the firm must report. It shall mean nothing.") == []


def test_known_concepts_matched_by_normalised_labels_and_payload_is_valid() -> None:
    vocab = [KnownConcept("AML", "CUSTOMER_DUE_DILIGENCE", "ADGM", "Customer Due Diligence",
                          ("CDD",)),
             KnownConcept("DATA_PROTECTION", "PROCESSOR", "EU", "processor"),
             KnownConcept("AI", "PROVIDER", "EU", "provider"),
             KnownConcept("DATA_PROTECTION", "PROVIDER", "EU", "provider")]
    extractor = ConceptExtractor(vocab)
    payload = extractor.extract("When is CDD (customer due-diligence) required for processors?",
                                "A provider must …",
                                [SourceText("The provider of a high-risk AI system shall …",
                                            title="EU AI Act (Regulation (EU) 2024/1689)")])
    items = [CapturedConcept.model_validate(c) for c in payload["concepts"]]
    assert [(c.kind, c.domain) for c in items] == [
        ("CUSTOMER_DUE_DILIGENCE", "AML"), ("PROCESSOR", "DATA_PROTECTION"), ("PROVIDER", "AI")]
    assert items[0].altLabels == ["CDD"]
    required = CAPTURE_CONCEPTS_SCHEMA["parameters"]["properties"]["concepts"]["items"]["required"]
    assert all(set(required) <= set(c) for c in payload["concepts"])


def test_guard_aspects_each_refuse_their_case(build: Build) -> None:
    guard: IngressGuard = build().guard
    ok = WriteRequest("node", ("Concept", "AmlConcept"), ("concept:AML:CDD:ADGM",),
                      {"prefLabel": "Customer Due Diligence", "altLabels": ["CDD"],
                       "definition": "Identifying a customer under Annex I and point (i).",
                       "sourceUrls": ["https://www.adgm.com/rules"]})
    guard.check(ok)
    cases = {
        "whitelist": [WriteRequest("node", ("User",), ("concept:a",), {}),
                      WriteRequest("node", ("Concept",), ("concept:a",), {"email": "x"}),
                      WriteRequest("edge", ("Concept", "Concept"), ("concept:a", "concept:b"),
                                   rel="OWNS"),
                      WriteRequest("node", ("Concept",), ("tenant-1",), {})],
        "size": [WriteRequest("node", ("Concept",), ("concept:a",), {"prefLabel": "x" * 300}),
                 WriteRequest("node", ("Concept",), ("concept:a",),
                              {"altLabels": [f"l{i}" for i in range(60)]})],
        "identifiers": [
            WriteRequest("node", ("Concept",), ("concept:a",),
                         {"prefLabel": "3f2b8c1e-0d4a-4c2e-9b7a-1a2b3c4d5e6f"}),
            WriteRequest("node", ("Concept",), ("concept:a",), {"prefLabel": "conv_id: 88812"}),
            WriteRequest("node", ("Concept",), ("concept:a",),
                         {"prefLabel": "deadbeefdeadbeefdeadbeef00"})],
        "chat_text": [
            WriteRequest("node", ("Concept",), ("concept:a",), {"prefLabel": "what is CDD"}),
            WriteRequest("node", ("Concept",), ("concept:a",),
                         {"definition": "I think my bank should do this?"})],
        "pii": [WriteRequest("node", ("Concept",), ("concept:a",),
                             {"prefLabel": "contact ops@bank.com"}),
                WriteRequest("node", ("Section",), ("section:a",), {"title": "Dr Alice Jones"})],
    }
    for aspect, requests in cases.items():
        for req in requests:
            before = guard.refusals[aspect]
            with pytest.raises(GraphWriteRefused) as refused:
                guard.check(req)
            assert refused.value.aspect == aspect and guard.refusals[aspect] == before + 1


async def test_injection_payloads_are_stored_literally(build: Build) -> None:
    services = build()
    payload = "x'}) MATCH (n) DETACH DELETE n //"
    result = await services.handler.handle({"concepts": [
        {"domain": "AML", "kind": "SAFE", "jurisdiction": "ADGM", "prefLabel": "safe concept"},
        {"domain": "AML`) DETACH DELETE n //", "kind": payload, "jurisdiction": "ADGM",
         "prefLabel": payload, "definition": "\" RETURN 1; //"}]})
    assert len(result.referencedNodeIds) == 2
    nodes = await services.client.get_nodes_by_ids(result.referencedNodeIds)
    assert nodes[1].properties["prefLabel"] == payload
    assert "Concept" in nodes[1].labels  # an unknown domain gets the generic label only


def test_a_cited_definitions_article_yields_only_the_terms_discussed() -> None:
    import json

    from tests.concepts.conftest import SHARED

    rows = [json.loads(x) for x in
            (SHARED / "regulations" / "gdpr_articles.jsonl").read_text().splitlines()]
    article4 = next(r["text"] for r in rows if r["article"] == "4")
    payload = ConceptExtractor().extract(
        "Is pseudonymised data still in scope?",
        "Yes: pseudonymisation reduces risk, but the data remain personal data.",
        [SourceText(article4, title="GDPR (Regulation (EU) 2016/679)")])
    assert [(c["prefLabel"], c["domain"], c["jurisdiction"]) for c in payload["concepts"]] == [
        ("personal data", "DATA_PROTECTION", "EU"),
        ("pseudonymisation", "DATA_PROTECTION", "EU")]
    assert payload["concepts"][1]["definition"].startswith("the processing of personal data")
