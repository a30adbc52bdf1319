"""PII: found with the right offsets, masked, never over the network, fast, and quiet on
regulatory text."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from regintel.guardrails.pii import PiiDetector
from regintel.guardrails.pii_recognizers import iban_ok, luhn_ok, offline_tld_extractor


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("Please reply to jane.doe@example.co.uk about the KYC file.", "EMAIL_ADDRESS",
     "jane.doe@example.co.uk"),
    ("Call me on +971 50 123 4567 before the board meeting.", "PHONE_NUMBER",
     "+971 50 123 4567"),
    ("My desk line is 905-674-3793 if the MLRO needs me.", "PHONE_NUMBER", "905-674-3793"),
    ("Can someone call me on 9472 7916? It is about my account.", "PHONE_NUMBER", "9472 7916"),
    ("The refund goes to IBAN AE07 0331 2345 6789 0123 456 next week.", "IBAN_CODE",
     "AE07 0331 2345 6789 0123 456"),
    ("Transfer from GB82WEST12345698765432 was flagged.", "IBAN_CODE",
     "GB82WEST12345698765432"),
    ("The client paid with card 4111 1111 1111 1111 yesterday.", "CREDIT_CARD",
     "4111 1111 1111 1111"),
    ("Card 378282246310005 (Amex) was declined.", "CREDIT_CARD", "378282246310005"),
    ("His SSN is 536-22-8726, is that personal data?", "US_SSN", "536-22-8726"),
    ("Logins came from 185.23.117.4 at night.", "IP_ADDRESS", "185.23.117.4"),
    ("See https://www.example-bank.ae/kyc/form?id=7. Then sign.", "URL",
     "https://www.example-bank.ae/kyc/form?id=7"),
    ("Our portal at clientdocs.example.com holds the files.", "URL", "clientdocs.example.com"),
])
def test_finds_each_kind_with_exact_offsets(pii: PiiDetector, text: str, kind: str,
                                            value: str) -> None:
    found = [f for f in pii.find(text) if f.entity_type == kind]
    assert len(found) == 1, pii.find(text)
    f = found[0]
    assert (f.text, text[f.start:f.end]) == (value, value)
    assert f.start == text.index(value) and 0.4 <= f.score <= 1.0


def test_checksums_decide_cards_and_ibans(pii: PiiDetector) -> None:
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert iban_ok("GB82 WEST 1234 5698 7654 32") and not iban_ok("GB82 WEST 1234 5698 7654 33")
    text = "Card 4111 1111 1111 1112 and IBAN GB82WEST12345698765433 are both mistyped."
    assert [f.entity_type for f in pii.find(text)] == []


def test_mask_replaces_spans_and_keeps_the_rest(pii: PiiDetector) -> None:
    text = ("Email jane.doe@example.com or call +44 20 7946 0958 about account "
            "GB82WEST12345698765432.")
    masked = pii.mask(text)
    assert masked.text == ("Email <EMAIL_ADDRESS> or call <PHONE_NUMBER> about account "
                           "<IBAN_CODE>.")
    assert [f.entity_type for f in masked.findings] == ["EMAIL_ADDRESS", "PHONE_NUMBER",
                                                        "IBAN_CODE"]
    assert all(text[f.start:f.end] == f.text for f in masked.findings)


def test_an_email_is_one_finding_not_an_email_and_a_domain(pii: PiiDetector) -> None:
    found = pii.find("Write to compliance@adgm-firm.com today.")
    assert [(f.entity_type, f.text) for f in found] == [("EMAIL_ADDRESS",
                                                         "compliance@adgm-firm.com")]


def test_full_dates_are_found_but_not_masked(pii: PiiDetector) -> None:
    text = "She was born on 2/8/1935; the rule changed in 2019."
    assert [(f.entity_type, f.text) for f in pii.find(text)] == [("DATE_TIME", "2/8/1935")]
    assert pii.mask(text).text == text


def test_a_timestamp_near_a_context_word_is_no_phone_number(pii: PiiDetector) -> None:
    # A memory recap line: "answer" is a phone context word, and "2026-11-22 14" eleven digits.
    text = "- 2026-11-22 14:29 — you asked: \"Which rule?\". Answer: Rule 8.1."
    assert [(f.entity_type, f.text) for f in pii.find(text)] == [("DATE_TIME",
                                                                   "2026-11-22 14:29")]
    assert pii.mask(text).text == text
    assert [f.entity_type for f in pii.find("Answer: call me on 2026 1122 1429")] == \
        ["PHONE_NUMBER"]


def test_no_network_when_built_or_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """Construction and the e-mail/URL checks (tldextract) connect nowhere, not even to
    loopback: the public-suffix list is the bundled snapshot and nothing is cached on disk."""
    calls: list[Any] = []
    real = socket.socket.connect

    def record(self: socket.socket, address: Any) -> None:
        calls.append(address)
        real(self, address)

    monkeypatch.setattr(socket.socket, "connect", record)
    offline_tld_extractor.cache_clear()
    detector = PiiDetector()
    found = detector.find("Mail a.b@brand-new-domain.com or visit https://www.example.org/x")
    assert [f.entity_type for f in found] == ["EMAIL_ADDRESS", "URL"]
    assert calls == []
    extractor = offline_tld_extractor()
    assert extractor.suffix_list_urls == ()
    assert extractor._cache.enabled is False



@pytest.mark.parametrize("text", [
    "What does Rule 5.13.2.1 require of an Authorised Person?",
    "Is a fine of USD 10 000 000 possible under section 24 of FSMR 2015?",
    "How are exposures risk weighted at 200% under Chapter 4 of PRU?",
    "Can a firm with 250 employees rely on Rule 8.1.1(2)(b) for clients aged 18 or over?",
    "What must be filed by 31 December under GEN 8.10.2 and Chapter 12?",
])
def test_regulatory_questions_carry_no_pii(pii: PiiDetector, text: str) -> None:
    assert pii.find(text) == []


def test_obliqa_questions_are_left_alone(pii: PiiDetector, obliqa_questions: list[str]) -> None:
    flagged = [(q, pii.find(q)) for q in obliqa_questions[:1000] if pii.find(q)]
    assert flagged == []


def test_an_installed_ner_model_adds_names_and_places(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wiring used when en_core_web_sm is installed, with a stand-in pipeline (no model is
    downloaded in tests): spaCy PERSON / GPE / ORG come out as PERSON / GPE / ORGANIZATION."""
    import spacy

    from regintel.guardrails import pii as pii_module

    def fake_load(name: str, **_: Any) -> Any:
        assert name == pii_module.NER_MODEL
        nlp = spacy.blank("en")
        ruler = nlp.add_pipe("entity_ruler")
        ruler.add_patterns([  # type: ignore[attr-defined]
            {"label": "PERSON", "pattern": "Jane Doe"}, {"label": "GPE", "pattern": "Abu Dhabi"},
            {"label": "ORG", "pattern": "Acme Bank"}, {"label": "DATE", "pattern": "Monday"}])
        return nlp

    monkeypatch.setattr(spacy, "load", fake_load)
    detector = PiiDetector(use_ner=True)
    text = "Jane Doe of Acme Bank in Abu Dhabi called on Monday from +971 2 123 4567."
    found = [(f.entity_type, f.text) for f in detector.find(text)]
    assert found == [("PERSON", "Jane Doe"), ("ORGANIZATION", "Acme Bank"),
                     ("GPE", "Abu Dhabi"), ("PHONE_NUMBER", "+971 2 123 4567")]
    assert detector.mask(text).text.startswith("<PERSON> of <ORGANIZATION> in <GPE>")
