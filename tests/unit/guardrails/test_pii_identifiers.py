"""Issue 34, finding 5: identifiers the security probe saw stored unmasked or half-masked.
IBANs printed in groups of four (letter-only bank codes included), e-mails at reserved
domains, and passport numbers named as such; none of it at the cost of regulatory text."""

from __future__ import annotations

import pytest

from regintel.guardrails.input import InputGuardrail
from regintel.guardrails.pii import PiiDetector


def _found(pii: PiiDetector, text: str) -> list[tuple[str, str]]:
    return [(f.entity_type, f.text) for f in pii.find(text)]


# Valid by mod-97 (ISO 13616), printed the way banks print them: groups of four, the bank
# code often letters only ("WEST", "NWBK", "BARC", "INGB").
SPACED_IBANS = [
    "GB82 WEST 1234 5698 7654 32",
    "GB29 NWBK 6016 1331 9268 19",
    "NL91 ABNA 0417 1643 00",
    "DE89 3704 0044 0532 0130 00",
    "FR14 2004 1010 0505 0001 3M02 606",
    "NO93 8601 1117 947",
    "AE07 0331 2345 6789 0123 456",
    "ES91 2100 0418 4502 0005 1332",
]


@pytest.mark.parametrize("value", SPACED_IBANS)
@pytest.mark.parametrize("template", [
    "Please refund {} today.",
    "Call me about the transfer to {} before Friday.",  # a phone context word nearby
    "IBAN: {}",
    "Account {}, is enhanced due diligence needed?",
])
def test_a_printed_iban_is_one_iban_finding(pii: PiiDetector, value: str,
                                            template: str) -> None:
    text = template.format(value)
    assert _found(pii, text) == [("IBAN_CODE", value)]
    masked = pii.mask(text).text
    assert masked == template.format("<IBAN_CODE>")
    assert value[:4] not in masked and value[-2:] not in masked


def test_the_compact_and_lower_case_forms_still_count(pii: PiiDetector) -> None:
    assert _found(pii, "Paid from GB82WEST12345698765432.") == [
        ("IBAN_CODE", "GB82WEST12345698765432")]
    assert _found(pii, "iban gb29 nwbk 6016 1331 9268 19 please") == [
        ("IBAN_CODE", "gb29 nwbk 6016 1331 9268 19")]


def test_a_word_after_a_printed_iban_is_not_swallowed(pii: PiiDetector) -> None:
    # ES and DE IBANs end on a full group of four, so the next word looks like another group.
    assert _found(pii, "Send it to ES91 2100 0418 4502 0005 1332 FROM the escrow.") == [
        ("IBAN_CODE", "ES91 2100 0418 4502 0005 1332")]
    assert _found(pii, "Account GB82 WEST 1234 5698 7654 32 Ltd is closed.") == [
        ("IBAN_CODE", "GB82 WEST 1234 5698 7654 32")]


def test_a_mistyped_iban_is_no_iban(pii: PiiDetector) -> None:
    assert [e for e, _ in _found(pii, "Refund to GB82 WEST 1234 5698 7654 33 today.")
            if e == "IBAN_CODE"] == []


@pytest.mark.parametrize("address", [
    "jane@corp.example", "ops@bank.test", "noreply@mail.invalid", "root@intranet.localhost",
    "j.doe+kyc@example.com", "mlro@firm.internal", "a.b@sub.dept.example.org",
])
def test_emails_are_found_whatever_the_domain(pii: PiiDetector, address: str) -> None:
    text = f"Contact {address} about the SAR."
    assert _found(pii, text) == [("EMAIL_ADDRESS", address)]
    assert pii.mask(text).text == "Contact <EMAIL_ADDRESS> about the SAR."


@pytest.mark.parametrize("text", [
    "Clause 5@13.2019 was amended.",  # the top-level label is never all digits
    "Ratio of 4@1.25 applies.",
])
def test_an_at_sign_in_numbers_is_no_email(pii: PiiDetector, text: str) -> None:
    assert [e for e, _ in _found(pii, text) if e == "EMAIL_ADDRESS"] == []


@pytest.mark.parametrize(("text", "value"), [
    ("My passport no. 123456789 expires soon; is it valid for CDD?", "123456789"),  # UK/US
    ("passport number: C01X00T47", "C01X00T47"),                                    # DE
    ("Passport No.: 09AA12345 (French), is a copy enough?", "09AA12345"),           # FR
    ("His passport is J8369854.", "J8369854"),                                      # IN
    ("Client's passport #AB123456 was certified.", "AB123456"),                     # CA
    ("Passport number (YA1234567) on file.", "YA1234567"),                          # IT
    ("Pasaporte nº AAA123456 del cliente", "AAA123456"),                            # ES
    ("Reisepass-Nr. C01X00T47", "C01X00T47"),
    ("Passport ID: N 1234567", "N 1234567"),
])
def test_a_passport_number_is_masked_when_named(pii: PiiDetector, text: str,
                                                value: str) -> None:
    assert _found(pii, text) == [("PASSPORT", value)]
    masked = pii.mask(text).text
    assert value not in masked and "<PASSPORT>" in masked


@pytest.mark.parametrize("text", [
    "Does Rule 14.2.2 require a passport copy for every director?",
    "Is a passport number required under Rule 8.1.1(2)(b)?",
    "Passport holders: Rule 14.2.2 applies from 2019.",
    "Register of Passported Funds 2019 under Rule 3.1.4(b)(ii)",
    "A passport fee of USD 10 000 000 is not a Rule 5.13.2.1 matter.",
    "Is a passport valid until 31/12/2025 acceptable under section 24?",
    "The passport no longer needs to be certified after 2019-2020.",
    "Passport: 2019-2020 guidance",
    "passport number 14.2.2",
])
def test_passport_words_alone_mask_nothing(pii: PiiDetector, text: str) -> None:
    assert pii.mask(text).text == text


def test_the_input_guardrail_masks_all_three(guardrail: InputGuardrail) -> None:
    """The chat's first step, as the probe sent it: the masked text is what gets stored."""
    verdict = guardrail.check("I am jane@corp.example, passport number: C01X00T47; call me "
                              "about the refund to GB82 WEST 1234 5698 7654 32.")
    assert not verdict.blocked
    assert verdict.masked_text == ("I am <EMAIL_ADDRESS>, passport number: <PASSPORT>; call me "
                                   "about the refund to <IBAN_CODE>.")
    assert sorted(f.entity_type for f in verdict.pii) == ["EMAIL_ADDRESS", "IBAN_CODE",
                                                          "PASSPORT"]
    # The answer path (egress redaction, output guardrail) sees the same spans.
    assert [kind for kind, _s, _e in guardrail.find_pii("Refund GB82 WEST 1234 5698 7654 32")] \
        == ["IBAN_CODE"]
