"""Presidio pattern recognizers for the personal data a compliance question may carry.

Each pattern has a base score; a checksum (Luhn) lifts a match to 1.0 and a failed check
drops it; context words within a few words (``phone:``, ``call me on``, ``ZIP``) lift
the weak patterns over the analyser's threshold. Weak patterns are the ones that also match
ordinary numbers ("10 000 000", "3.1.2.4"), so they never fire on their own. IBANs and
passport numbers need more than one pattern can say: see ``pii_identifiers``.

What is deliberately not detected: bare years and weekdays (not personal on their own, and
common in regulatory questions), "the age of 18" and "aged 18 or over" (eligibility
thresholds, not someone's age), nationalities, job titles. Names, places and organisations
need a spaCy NER model; see ``regintel.guardrails.pii``."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from functools import lru_cache

import tldextract
from presidio_analyzer import EntityRecognizer, Pattern, PatternRecognizer

from regintel.guardrails.pii_identifiers import iban, passport
from regintel.guardrails.pii_identifiers import iban_ok as iban_ok  # re-exported for callers

# Presidio compiles with the ``regex`` module; these flags have the same values there. No
# DOTALL: a match must not run across lines of an address block.
_FLAGS = re.IGNORECASE | re.MULTILINE

STRONG = 0.6  # matches on its own
WEAK = 0.3    # needs a context word (+0.35) to pass the 0.4 threshold
FAINT = 0.05  # context lifts it to the 0.4 floor; nothing else does


@lru_cache(maxsize=1)
def offline_tld_extractor() -> tldextract.TLDExtract:
    """tldextract on its bundled public-suffix snapshot: no download, no disk cache."""
    return tldextract.TLDExtract(cache_dir=None, suffix_list_urls=())


class Recognizer(PatternRecognizer):
    """A pattern recognizer with optional checks on the matched text: ``valid`` (a checksum;
    True lifts the score to 1.0, False drops the match) and ``reject`` (True drops it)."""

    def __init__(self, entity: str, patterns: list[Pattern], *, context: list[str] | None = None,
                 valid: Callable[[str], bool] | None = None,
                 reject: Callable[[str], bool] | None = None, name: str | None = None) -> None:
        super().__init__(supported_entity=entity, patterns=patterns, context=context or [],
                         name=name or f"regintel_{entity.lower()}", global_regex_flags=_FLAGS)
        self._valid = valid
        self._reject = reject

    def validate_result(self, pattern_text: str) -> bool | None:
        return self._valid(pattern_text) if self._valid else None

    def invalidate_result(self, pattern_text: str) -> bool | None:
        return self._reject(pattern_text) if self._reject else None


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def luhn_ok(text: str) -> bool:
    digits = [int(c) for c in _digits(text)]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return bool(digits) and total % 10 == 0


def _card_ok(text: str) -> bool:
    digits = _digits(text)
    # Issuer prefixes: 1 UATP, 2 Mastercard 2-series / JCB 2131, 3 Amex / Diners / JCB,
    # 4 Visa, 5 Mastercard / Maestro, 6 Discover / Maestro / UnionPay. Never 0, 7, 8, 9.
    return 12 <= len(digits) <= 19 and digits[0] in "123456" and luhn_ok(digits)


def _ssn_reject(text: str) -> bool:
    area, group, serial = re.split(r"[- ]", text)
    return area in ("000", "666") or area.startswith("9") or group == "00" or serial == "0000"


def _ip_ok(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _ipv4_reject(text: str) -> bool:
    # Small dotted numbers are far more often a clause ("Rule 5.13.2.1") than an address:
    # an address needs a three-digit part, or two parts of two digits (misses 10.0.0.1).
    lengths = [len(part) for part in text.split(".")]
    return max(lengths) < 3 and sum(n >= 2 for n in lengths) < 2


def _domain_ok(text: str) -> bool:
    host = re.sub(r"^[a-z][a-z0-9+.-]*://", "", text, flags=re.IGNORECASE).split("/")[0]
    parts = offline_tld_extractor()(host)
    return bool(parts.domain and parts.suffix)


def _email_domain_ok(text: str) -> bool:
    """Any syntactically valid domain: the public-suffix list does not know the reserved and
    private ones ("corp.example", ".test", ".internal"), and an address there is still
    somebody's. A top-level label is never all digits, which keeps "4@1.25" out."""
    labels = text.rsplit("@", 1)[-1].split(".")
    return not labels[-1].isdigit() and all(
        0 < len(label) <= 63 and label[0] != "-" and label[-1] != "-" for label in labels)


# An ISO date, perhaps with the hour after it: "2026-11-22 14" (of "2026-11-22 14:29") is
# eleven digits in groups, and a context word nearby ("answer") would make it a phone number.
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2})?$")


def _phone_reject(text: str) -> bool:
    return not 7 <= len(_digits(text)) <= 15 or bool(_ISO_DATE.match(text))


# Matched as whole lower-cased words, so inflections are listed.
_PHONE_CONTEXT = ["phone", "phones", "telephone", "mobile", "cell", "cellphone", "fax", "office",
                  "desk", "call", "calls", "calling", "answering", "answer", "messages",
                  "message", "whatsapp", "sms", "text", "dial", "contact", "reach", "landline",
                  "tel", "ring"]
_NOT_BEFORE = r"(?<![\w+./-])(?<!\d,)"
_NOT_AFTER = r"(?![\w/]|[.,:-]\d)"  # nor the hour of a time ("14" of "14:29")
_EXT = r"(?:\s?(?:x|ext\.?)\s?\d{1,5})?"


def phone() -> Recognizer:
    return Recognizer("PHONE_NUMBER", [
        # +CC …, with an optional "(0)" trunk prefix: +46 (0)8 928 571 38, +1-984-182-0190
        Pattern("international", rf"{_NOT_BEFORE}\+\d{{1,3}}(?:[\s.-]?\(0\))?"
                                 rf"(?:[\s.-]?\d{{1,5}}){{2,6}}{_EXT}{_NOT_AFTER}", STRONG),
        # North American 3-3-4 with any separator, optional 1 / 001 prefix and extension
        Pattern("nanp", rf"{_NOT_BEFORE}(?:(?:00)?1[\s.-])?\(?\d{{3}}\)?[\s.-]\d{{3}}[\s.-]"
                        rf"\d{{4}}{_EXT}{_NOT_AFTER}", STRONG),
        # area code in brackets: (37) 788-063, (099) 645 7912
        Pattern("bracketed", rf"{_NOT_BEFORE}\(\d{{2,4}}\)\s?\d{{3,4}}[\s.-]\d{{3,4}}"
                             rf"{_EXT}{_NOT_AFTER}", STRONG),
        # dotted pairs: 03.93.92.16.85
        Pattern("dotted", rf"{_NOT_BEFORE}0\d(?:\.\d{{2}}){{4}}{_NOT_AFTER}", STRONG),
        # any other grouping of 7-15 digits (needs a context word): 467 3395, 60-56-85-91
        Pattern("grouped", rf"{_NOT_BEFORE}\d{{2,5}}(?:[ .-]\d{{2,6}}){{1,4}}{_EXT}"
                           rf"{_NOT_AFTER}", WEAK),
        Pattern("run", rf"{_NOT_BEFORE}\d{{7,12}}{_NOT_AFTER}", WEAK),
    ], context=_PHONE_CONTEXT, reject=_phone_reject)


def email() -> Recognizer:
    return Recognizer("EMAIL_ADDRESS", [
        Pattern("email", r"\b[\w.!#$%&'*+/=?^`{|}~-]+@(?:[\w-]+\.)+[\w-]{2,}\b", STRONG),
    ], context=["email", "e-mail", "mail"], valid=_email_domain_ok)


def credit_card() -> Recognizer:
    return Recognizer("CREDIT_CARD", [
        Pattern("card", r"(?<![\w-])\d(?:[ -]?\d){11,18}(?![\w-])", WEAK),
    ], context=["card", "cards", "credit", "debit", "visa", "mastercard", "amex"], valid=_card_ok)


def us_ssn() -> Recognizer:
    return Recognizer("US_SSN", [
        Pattern("ssn", r"(?<![\w-])\d{3}([- ])\d{2}\1\d{4}(?![\w-])", 0.5),
        Pattern("ssn_plain", r"(?<![\w-])\d{9}(?![\w-])", FAINT),
    ], context=["ssn", "social", "security"], reject=_ssn_reject_any)


def _ssn_reject_any(text: str) -> bool:
    if re.fullmatch(r"\d{9}", text):
        return _ssn_reject(f"{text[:3]}-{text[3:5]}-{text[5:]}")
    return _ssn_reject(text)


def ip_address() -> Recognizer:
    octet = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
    return Recognizer("IP_ADDRESS", [
        Pattern("ipv4", rf"(?<![\w.]){octet}(?:\.{octet}){{3}}(?![\w]|\.\d)", STRONG),
        Pattern("ipv6", r"(?<![\w:])(?:[0-9a-f]{1,4}:){2,7}(?::|(?::[0-9a-f]{1,4}){1,6}|"
                        r"[0-9a-f]{1,4})(?![\w:])", STRONG),
    ], context=["ip", "address", "server", "host"],
        reject=lambda t: not _ip_ok(t) or ("." in t and _ipv4_reject(t)))


def url() -> Recognizer:
    tail = r"(?:/[^\s<>\"'()\[\]]*[^\s<>\"'()\[\].,;:!?])?/?"
    label = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
    return Recognizer("URL", [
        Pattern("scheme", rf"\bhttps?://{label}(?:\.{label})+(?::\d{{2,5}})?{tail}", 0.7),
        Pattern("www", rf"(?<![@\w.])www\d{{0,3}}\.{label}(?:\.{label})+{tail}", 0.7),
        # bare host names count only when the suffix is a real public suffix
        Pattern("bare", rf"(?<![@\w./-]){label}(?:\.{label})*\.[a-z]{{2,24}}{tail}"
                        r"(?![\w@-])", 0.5),
    ], context=["website", "url", "link", "site", "web"], valid=_domain_ok)


def date_time() -> Recognizer:
    return Recognizer("DATE_TIME", [
        Pattern("iso", r"\b(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
                       r"(?:[ T](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?)?\b", STRONG),
        Pattern("numeric", r"(?<![\w./-])(?:0?[1-9]|[12]\d|3[01])([/.-])(?:0?[1-9]|[12]\d|3[01])"
                           r"\1(?:19|20)\d{2}(?![\w/-]|\.\d)", STRONG),
    ], context=["born", "birth", "dob", "date"])


def age() -> Recognizer:
    return Recognizer("AGE", [
        Pattern("years_old", r"\b\d{1,3}(?=(?:\s|-)?years?(?:\s|-)old\b|\s?y/o\b)", STRONG),
        Pattern("turned", r"(?<=\b(?:turned|turn|turning|i'm|i am|he's|she's)\s)\d{1,3}"
                          r"\b(?![.,]\d)(?!\s?(?:%|percent|per\s?cent|days|months|weeks|"
                          r"hours|minutes|times))", STRONG),
    ])


def zip_code() -> Recognizer:
    return Recognizer("ZIP_CODE", [
        Pattern("zip", r"(?<![\w-])\d{3,5}(?:[ -]\d{2,3})?(?:\s(?-i:[A-Z]{2}))?(?![\w-])", FAINT),
    ], context=["zip", "postcode", "postal"])


def us_driver_license() -> Recognizer:
    return Recognizer("US_DRIVER_LICENSE", [
        Pattern("license", r"(?<![\w-])(?=[A-Z0-9-]{5,})(?-i:[A-Z0-9]){1,4}-?\d{2,7}"
                           r"(?:-\d{2,5})?(?![\w-])", FAINT),
    ], context=["license", "licence"])


_ADDRESS_CONTEXT = ["address", "lives", "live", "living", "located", "billing", "shipping",
                    "deliver", "delivered", "moved", "apt", "apt.", "suite", "corner", "street"]


def street_address() -> Recognizer:
    suffix = (r"(?:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|court|ct|way|"
              r"place|pl|square|sq|terrace|route|crescent|highway|hwy|parkway|pkwy|alley|"
              r"plaza|circle|trail|squares|streets|routes|roads)")
    name = r"(?-i:[A-Z])[\w'’.-]*"
    return Recognizer("STREET_ADDRESS", [
        Pattern("number_street", rf"\b\d{{1,5}}\s+(?:{name}\s+){{1,3}}{suffix}\b\.?", 0.7),
        Pattern("unit", r"\b(?:apt\.?|apartment|suite|unit)\s+#?\d{1,5}\b", STRONG),
        Pattern("military", r"\b(?:PSC|Unit)\s+\d{4},?\s+Box\s+\d{4}\s*\n?\s*(?:APO|FPO|DPO)\s+"
                            r"A[AEP]\s+\d{5}\b", STRONG),
    ], context=_ADDRESS_CONTEXT)


# Words that put a number after them in regulatory text: "Chapter 12", "section 24",
# "weighted at 200". A house-number-last address never ends in one of them.
_REFERENCE_WORDS = frozenset((
    "chapter", "chapters", "rule", "rules", "section", "sections", "article", "articles",
    "part", "parts", "schedule", "paragraph", "para", "regulation", "regulations", "annex",
    "appendix", "table", "step", "level", "tier", "phase", "page", "pages", "item", "note",
    "form", "question", "principle", "standard", "year", "years", "day", "days", "month",
    "months", "at", "of", "in", "to", "under", "with", "and", "or", "by", "for", "is", "are",
    "was", "than", "about", "over", "from", "on", "the", "a", "an", "no", "yes", "removed",
    "version", "number", "law", "act", "directive", "cap", "tab", "class", "category",
    "pillar", "stage", "round", "option", "model", "type", "group", "list", "figure", "fig",
))


def _reference_like(text: str) -> bool:
    words = [w.lower().strip(".,'’") for w in text.split()]
    return any(w in _REFERENCE_WORDS for w in words) or not any(c.isalpha() for c in text)


def street_address_number_last() -> Recognizer:
    """Continental order, house number last ("5049 Harjukuja 54", "Via Franscini 71"): the
    shape of "5 of Law 12" too, so only beside an address word, never with a reference word."""
    return Recognizer("STREET_ADDRESS", [
        Pattern("number_last", r"(?<![\w.-])(?:\d{1,5}\s+)?(?:[^\W\d_][\w'’.-]*[ \t]+){1,3}"
                               r"\d{1,4}[a-z]?\b(?![.,]\d)", WEAK),
    ], context=_ADDRESS_CONTEXT, reject=_reference_like, name="regintel_street_number_last")


def all_recognizers() -> list[EntityRecognizer]:
    return [email(), phone(), credit_card(), iban(), us_ssn(), ip_address(), url(),
            date_time(), age(), zip_code(), us_driver_license(), street_address(),
            street_address_number_last(), passport()]
